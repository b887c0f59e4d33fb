#!/usr/bin/env node
// CommonJS (bin/package.json says so): an ES module here would make Node start its module loader
// before any of stor runs. The only place that ends the process: run() returns the exit code,
// main() sets it.
'use strict';
require('../dist/bundle/start.cjs').start();
