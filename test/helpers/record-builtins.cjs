// Preloaded (`node --require`) into a spawned stor: writes to the file named by
// STOR_TEST_BUILTINS, as the process exits, the Node built-in modules loaded after this preload,
// one a line (`process.moduleLoadList`'s `NativeModule <name>` entries). How a test sees which
// built-ins a command loaded, not how long they took.
'use strict';
const fs = require('node:fs');

const before = new Set(process.moduleLoadList);
process.on('exit', () => {
  const loaded = process.moduleLoadList
    .filter((m) => !before.has(m) && m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
  fs.writeFileSync(process.env.STOR_TEST_BUILTINS, loaded.join('\n'));
});
