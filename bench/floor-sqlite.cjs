// The least an embedded `stor whoami` has to do, without stor (bench/ab.mjs, STOR_AB_FLOOR=1): open
// the state's SQLite file, read the admin key file and the users, and print one line. A floor to
// read the embedded figure against, not a stand-in for it: no login, no contract, no output table.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { DatabaseSync } = require('node:sqlite');

const home = process.env.STOR_HOME;
const key = readFileSync(join(home, 'admin.key'), 'utf8');
const db = new DatabaseSync(join(home, 'stor.db'), { readOnly: true });
const users = db.prepare('SELECT * FROM users').all();
process.stdout.write(`${users.length} users, key of ${key.length} bytes\n`);
