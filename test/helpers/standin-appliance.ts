import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { WebSocketServer } from 'ws';

/** What the stand-in answers for one method: a result, or a JSON-RPC error object. */
export type StandinAnswer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/**
 * A third-party appliance as the CLI sees it: JSON-RPC 2.0 over a WebSocket at /api/current,
 * answering each method from a table, and -32601 for anything else (as 25.10.1 does). It stands
 * in for a real TrueNAS whose answers a test needs to control; stor's own emulator is never
 * replaced by it.
 */
export async function startStandinAppliance(
  answers: Record<string, StandinAnswer | ((params: unknown[]) => StandinAnswer)>,
  /** Plain HTTP requests (e.g. `POST /_upload/`); 404 when absent. */
  http_?: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ baseUrl: string; calls: string[] }> {
  const calls: string[] = [];
  const http = createServer(http_ ?? ((_req, res) => res.writeHead(404).end()));
  const wss = new WebSocketServer({ server: http, path: '/api/current' });
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { id?: unknown; method: string; params?: unknown[] };
      calls.push(msg.method);
      const entry = answers[msg.method];
      const answer = typeof entry === 'function' ? entry(msg.params ?? []) : (entry ?? { error: { code: -32601, message: 'Method does not exist' } });
      if (msg.id !== undefined) ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...answer }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => http.close(resolve));
  });
  return { baseUrl: `ws://127.0.0.1:${(http.address() as AddressInfo).port}`, calls };
}
