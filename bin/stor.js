#!/usr/bin/env node
// The only place that ends the process: run() returns the exit code, main() sets it.
import { start } from '../dist/bundle/start.js';

await start();
