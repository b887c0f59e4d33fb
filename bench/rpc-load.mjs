// JSON-RPC throughput over one WebSocket with `inflight` calls outstanding at all times.
// Usage: node rpc-load.mjs <ws-url> <key|-> <method> <params-json> <total> <inflight>
import WebSocket from 'ws';

const [url, key, method, paramsJson, totalArg, inflightArg] = process.argv.slice(2);
const total = Number(totalArg);
const inflight = Number(inflightArg);
const params = JSON.parse(paramsJson);
const ws = new WebSocket(url, { perMessageDeflate: false });
await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

let nextId = 1;
const waiting = new Map();
ws.on('message', (data) => {
  const msg = JSON.parse(data.toString());
  const done = waiting.get(msg.id);
  if (done) {
    waiting.delete(msg.id);
    if (msg.error) {
      console.error(JSON.stringify(msg.error));
      process.exit(1);
    }
    done();
  }
});
const call = (m, p) =>
  new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: m, params: p }));
  });

if (key !== '-') await call('auth.login_with_api_key', [key]);
let sent = 0;
const t0 = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: inflight }, async () => {
    while (sent < total) {
      sent++;
      await call(method, params);
    }
  }),
);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(JSON.stringify({ calls: total, seconds, per_second: total / seconds }));
ws.close();
