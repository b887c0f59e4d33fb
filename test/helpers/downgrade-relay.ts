import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';

/**
 * A raw WebSocket relay in front of a real SCRAM server, which can be switched to play a
 * downgrading man in the middle: it then answers new connections itself, offering no SCRAM and
 * keeping whatever `auth.login_with_api_key` is sent.
 */
export async function downgradingRelay(upstream: string) {
  const state = { downgrade: false, keysSent: [] as unknown[] };
  const http = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server: http, path: '/api/current' });
  wss.on('connection', (client) => {
    if (state.downgrade) {
      client.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as { id: string; method: string; params: unknown[] };
        const reply = (body: object) => client.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...body }));
        if (msg.method === 'auth.mechanism_choices') return reply({ result: ['API_KEY_PLAIN', 'PASSWORD_PLAIN'] });
        if (msg.method === 'auth.login_with_api_key') {
          state.keysSent.push(msg.params[0]);
          return reply({ result: true });
        }
        return reply({ error: { code: -32601, message: 'Method does not exist' } });
      });
      return;
    }
    const up = new WebSocket(upstream);
    const queued: string[] = [];
    up.on('open', () => queued.splice(0).forEach((m) => up.send(m)));
    up.on('message', (data) => client.send(data.toString()));
    up.on('close', () => client.close());
    up.on('error', () => client.terminate());
    client.on('message', (data) =>
      up.readyState === WebSocket.OPEN ? up.send(data.toString()) : queued.push(data.toString()),
    );
    client.on('close', () => up.terminate());
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  onTestFinished(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise((r) => wss.close(r));
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  });
  /** Closes every client connection through the relay; resolves once each client answered the close. */
  const dropAll = () =>
    Promise.all([...wss.clients].map((c) => new Promise<void>((r) => (c.once('close', () => r()), c.close(1001)))));
  return { baseUrl: `ws://127.0.0.1:${(http.address() as AddressInfo).port}`, state, dropAll };
}
