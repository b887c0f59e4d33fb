// Preloaded (`node --require`) into a spawned stor: writes to the file named by
// STOR_TEST_BUNDLE_READS, as the process exits, every file under dist/bundle/ it opened or
// compiled as CommonJS, one a line. How a test sees what a command loaded, not how long it took.
'use strict';
const fs = require('node:fs');
const Module = require('node:module');

const seen = new Set();
const note = (path) => {
  if (String(path).includes('/dist/bundle/')) seen.add(String(path));
};
const openSync = fs.openSync;
fs.openSync = function (path, ...rest) {
  note(path);
  return openSync.call(this, path, ...rest);
};
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  note(filename);
  return compile.call(this, content, filename);
};
process.on('exit', () => fs.writeFileSync(process.env.STOR_TEST_BUNDLE_READS, [...seen].join('\n')));
