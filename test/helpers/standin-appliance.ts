import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { WebSocketServer } from 'ws';

/**
 * What the stand-in answers for one method: a result, a JSON-RPC error object, a raw frame sent
 * as it is (a hostile or broken appliance), a result given as raw JSON text inside a proper
 * envelope (`rawResult`: a value JSON.stringify could not make, say 200000 levels deep), nothing
 * ever (`silent`), or one of those only after `after` milliseconds (a slow appliance) or once
 * `held` settles (a call the test lets through when it chooses).
 */
export type StandinAnswer =
  | { result: unknown }
  | { error: { code: number; message: string; data?: unknown } }
  | { raw: string }
  | { rawResult: string }
  | { silent: true }
  | { after: number; answer: StandinAnswer }
  | { held: Promise<StandinAnswer> };

type Answers = Record<string, StandinAnswer | ((params: unknown[]) => StandinAnswer)>;

/** The frame for one request, or undefined when none is to be sent; later when the answer says so. */
async function frameFor(
  answers: Answers,
  msg: { id?: unknown; method: string; params?: unknown[] },
): Promise<string | undefined> {
  const entry = answers[msg.method];
  let answer =
    typeof entry === 'function'
      ? entry(msg.params ?? [])
      : (entry ?? { error: { code: -32601, message: 'Method does not exist' } });
  const isLater = (a: StandinAnswer): a is { after: number; answer: StandinAnswer } => 'after' in a && 'answer' in a;
  while (isLater(answer) || 'held' in answer) {
    if ('held' in answer) {
      answer = await answer.held;
      continue;
    }
    const { after, answer: then } = answer;
    await new Promise((r) => setTimeout(r, after));
    answer = then;
  }
  if ('silent' in answer || msg.id === undefined) return undefined;
  if ('raw' in answer) return answer.raw;
  if ('rawResult' in answer) return `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${answer.rawResult}}`;
  return JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...answer });
}

/**
 * A third-party appliance as the CLI sees it: JSON-RPC 2.0 over a WebSocket at /api/current and
 * over `POST /api/current` (`--rpc http`), answering each method from a table, and -32601 for
 * anything else (as 25.10.1 does). It stands in for a real TrueNAS whose answers a test needs to
 * control; stor's own emulator is never replaced by it.
 */
export async function startStandinAppliance(
  answers: Answers,
  /** Plain HTTP requests (e.g. `POST /_upload/`); 404 when absent. */
  http_?: (req: IncomingMessage, res: ServerResponse) => void,
  /** Answers `POST /api/current` in place of the table (a rate limiter, say). */
  rpcHttp?: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ baseUrl: string; calls: string[] }> {
  const calls: string[] = [];
  const http = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/api/current') {
      if (rpcHttp) return rpcHttp(req, res);
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        const msg = JSON.parse(body) as { id?: unknown; method: string; params?: unknown[] };
        calls.push(msg.method);
        void frameFor(answers, msg).then((frame) => {
          if (frame !== undefined && !res.destroyed)
            res.writeHead(200, { 'content-type': 'application/json' }).end(frame);
        });
      });
      return;
    }
    if (http_) http_(req, res);
    else res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server: http, path: '/api/current' });
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { id?: unknown; method: string; params?: unknown[] };
      calls.push(msg.method);
      void frameFor(answers, msg).then((frame) => {
        if (frame !== undefined && ws.readyState === ws.OPEN) ws.send(frame);
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise((resolve) => wss.close(resolve));
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  return { baseUrl: `ws://127.0.0.1:${(http.address() as AddressInfo).port}`, calls };
}
