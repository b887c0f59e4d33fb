#!/usr/bin/env node
// The only place that ends the process: run() returns the exit code, main() sets it.
import { main } from '../dist/bundle/stor.js';

await main();
