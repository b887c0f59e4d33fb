#!/usr/bin/env node
// The only place that ends the process: run() returns the exit code.
import { run } from '../dist/cli.js';
import { processIO } from '../dist/commands/shared/io.js';

process.exitCode = await run(process.argv.slice(2), processIO());
