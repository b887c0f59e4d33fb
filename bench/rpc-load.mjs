// JSON-RPC throughput over one WebSocket with `inflight` calls outstanding at all times.
// Usage: node rpc-load.mjs <ws-url> <key|-> <method> <params-json> <total> <inflight>
import { rpcClient } from './lib.mjs';

const [url, key, method, paramsJson, totalArg, inflightArg] = process.argv.slice(2);
const total = Number(totalArg);
const inflight = Number(inflightArg);
const params = JSON.parse(paramsJson);
const client = await rpcClient(url);
const call = async (m, p) => {
  const reply = await client.call(m, p);
  if (reply.error) {
    console.error(JSON.stringify(reply.error));
    process.exit(1);
  }
};

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
client.ws.close();
