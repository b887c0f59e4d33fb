// Preloaded (`node --require`) into a spawned stor: writes to the file named by
// STOR_TEST_FAILED_REQUIRES, as the process exits, every module name a require() looked for and
// did not find, one a line. How a test sees a command search the disk for a package it does not
// have, not how long the search took.
'use strict';
const fs = require('node:fs');
const Module = require('node:module');

const missed = new Set();
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  try {
    return resolve.call(this, request, ...rest);
  } catch (err) {
    missed.add(String(request));
    throw err;
  }
};
process.on('exit', () => fs.writeFileSync(process.env.STOR_TEST_FAILED_REQUIRES, [...missed].join('\n')));
