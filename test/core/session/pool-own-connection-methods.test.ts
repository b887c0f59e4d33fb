/**
 * A method that changes the connection's own credentials (privilege.become_readonly on TrueNAS 26)
 * runs on a connection of its own, never on the pooled one other commands share.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { WebSocketServer } from 'ws';
import { SessionPool } from '../../../src/core/session/pool.js';
import type { PooledTarget } from '../../../src/core/session/opener.js';
import { parseEndpoint } from '../../../src/core/transport/endpoint.js';

describe("a method that changes the connection's own credentials never runs on the shared connection", () => {
  it('privilege.become_readonly (TrueNAS 26: the session drops to READONLY_ADMIN) goes on a connection of its own', async () => {
    // Raw frames: which connection (by order of opening) received which method.
    const byConnection: string[][] = [];
    const http = createServer((_req, res) => res.writeHead(404).end());
    const wss = new WebSocketServer({ server: http, path: '/api/current' });
    wss.on('connection', (ws) => {
      const seen: string[] = [];
      byConnection.push(seen);
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as { id: string; method: string };
        seen.push(msg.method);
        const answer =
          msg.method === 'auth.mechanism_choices'
            ? { error: { code: -32601, message: 'Method does not exist' } }
            : {
                result:
                  msg.method === 'auth.me'
                    ? { pw_name: 'root' }
                    : msg.method === 'auth.login_with_api_key'
                      ? true
                      : null,
              };
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...answer }));
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    onTestFinished(async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise((r) => wss.close(r));
      await new Promise((r) => http.close(r));
    });
    const pool = new SessionPool();
    onTestFinished(() => pool.closeAll());
    const target: PooledTarget = {
      endpoint: parseEndpoint(`ws://127.0.0.1:${(http.address() as AddressInfo).port}`),
      apiKey: `1-${'k'.repeat(64)}`,
      insecure: false,
    };
    const reader = await pool.open(target, 10);
    const downgrader = await pool.open(target, 10);
    await downgrader.call('privilege.become_readonly');
    await reader.call('auth.me');
    await Promise.all([reader.close(), downgrader.close()]);
    const shared = byConnection[0]!;
    expect(shared).toContain('auth.me');
    expect(shared).not.toContain('privilege.become_readonly');
  });
});
