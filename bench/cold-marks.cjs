// `node --require bench/cold-marks.cjs bin/stor.js whoami`: prints to stderr, as the process exits,
// the wall time (performance.now(), ms since the process started) and the CPU used so far
// (process.cpuUsage(), user + system, ms) at the TCP connect, every write to and data from that
// socket, the first stdout writes, the socket's close and `exit`: where a cold remote command
// waits (bench/HISTORY.md, "where a cold remote `whoami` waits"). A measuring aid only: it wraps
// the socket's internal `_writeGeneric` to see each write as it goes out.
'use strict';
const dc = require('node:diagnostics_channel');

const marks = [];
const mark = (what) => {
  const c = process.cpuUsage();
  marks.push([performance.now().toFixed(1), ((c.user + c.system) / 1000).toFixed(1), what]);
};
mark('preload');
dc.subscribe('net.client.socket', ({ socket }) => {
  mark('connect');
  const write = socket._writeGeneric.bind(socket);
  socket._writeGeneric = function (writev, data, encoding, cb) {
    const bytes = writev ? data.reduce((n, d) => n + (d.chunk ?? d).length, 0) : data.length;
    mark(`write ${bytes} B`);
    return write(writev, data, encoding, cb);
  };
  socket.prependListener('data', (d) => {
    const what = /"error"/.test(d) ? ' error' : /"result":true/.test(d) ? ' true' : d[0] === 0x88 ? ' close frame' : '';
    mark(`data ${d.length} B${what}`);
  });
  socket.on('close', () => mark('socket closed'));
});
const stdoutWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => {
  mark('stdout write');
  return stdoutWrite(...args);
};
process.on('exit', () => {
  mark('exit');
  process.stderr.write(`wall ms\tCPU ms\tevent\n${marks.map((m) => m.join('\t')).join('\n')}\n`);
});
