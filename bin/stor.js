#!/usr/bin/env node
// CommonJS (bin/package.json says so): an ES module here would make Node start its module loader
// before any of stor runs. Only the first stage loads here: it hands the command to the session
// agent, or loads the CLI (start.cjs) and runs it in this process (docs/SESSIONS.md). The only
// place that ends the process: run() returns the exit code, main() sets it.
'use strict';
require('../dist/bundle/first-stage.cjs').start();
