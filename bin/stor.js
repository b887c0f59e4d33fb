#!/usr/bin/env node
// CommonJS (bin/package.json says so): an ES module here would make Node start its module loader
// before any of stor runs. Only the first stage loads here: it hands the command to the session
// agent, or loads the CLI (start.cjs) and runs it in this process (docs/SESSIONS.md).
// Nothing here ends the process, and run() (src/cli.ts) never does: it returns the exit code.
// What may (docs/ARCHITECTURE.md, "Who ends the process"): src/bin-entry.ts sets run()'s code as
// the exit code, and exits at once only to stop waiting for work the command abandoned;
// src/first-stage.ts exits with the code the agent sends, or 130/143 at a second Ctrl-C/SIGTERM;
// src/output-errors.ts (and the first stage's copy) when stdout or stderr fails (EPIPE 0, else 1).
'use strict';
require('../dist/bundle/first-stage.cjs').start();
