#!/usr/bin/env node
// Only the first stage loads here: it hands the command to the session agent, or loads the full
// CLI (dist/bundle/stor.js) and runs it in this process. The only place that ends the process.
import { start } from '../dist/bundle/first-stage.js';

await start();
