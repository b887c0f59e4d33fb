#!/usr/bin/env node
// The `node-gyp` that install scripts in this checkout find first: npm puts node_modules/.bin ahead
// of its own node-gyp on their PATH (@npmcli/run-script set-path.js), and this package, a
// devDependency, links its bin there before the dependencies' install scripts run (.npmrc
// install-links; npm's `node-gyp` setting is not passed to install scripts). better-sqlite3
// (`prebuild-install || node-gyp rebuild --release`) is stor's SQLite only where Node has no
// node:sqlite (Node 20; src/core/store/sqlite.ts), so on a Node that has it the build is skipped
// and `npm ci` compiles nothing. Every other build, and better-sqlite3's on Node 20, goes to npm's
// own node-gyp unchanged.
'use strict';
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

function packageName() {
  try {
    return JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')).name;
  } catch {
    return undefined;
  }
}

function hasNodeSqlite() {
  // Node 22 announces node:sqlite with an ExperimentalWarning; this process only asks.
  process.emitWarning = () => {};
  try {
    return process.getBuiltinModule?.('node:sqlite') !== undefined;
  } catch {
    return false;
  }
}

if (packageName() === 'better-sqlite3' && hasNodeSqlite()) {
  console.log(`stor: better-sqlite3 not built: Node.js ${process.version} has node:sqlite, which stor uses instead`);
  process.exit(0);
}

// npm's bundled node-gyp: what npm runs when no node-gyp is configured.
const npmCli = process.env.npm_execpath;
if (!npmCli) {
  console.error('stor: scripts/node-gyp.cjs runs under npm only (npm_execpath is not set)');
  process.exit(1);
}
const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js', { paths: [dirname(npmCli)] });
process.argv.splice(1, 1, nodeGyp);
require(nodeGyp);
