import { randomUUID } from 'node:crypto';
import { onTestFinished } from 'vitest';
import WebSocket from 'ws';
import type { Appliance } from '../../src/core/appliance/appliance.js';
import type { ApplianceSettings } from '../../src/core/appliance/settings.js';
import { startServer, type ServerOptions } from '../../src/core/server/server.js';
import { parseEndpoint } from '../../src/core/transport/endpoint.js';
import { apiKeyLogin } from '../../src/core/transport/login-strategies.js';
import { RemoteTransport } from '../../src/core/transport/remote.js';
import { openTestAppliance, type TestAppliance } from './appliance.js';

/**
 * Safety net for every wait below: only there so a broken server fails the test instead of hanging
 * it. Two minutes, under the test timeout: with real key hashes (scram.test.ts, key-checks.test.ts)
 * a loaded machine (load 25-30 on 2 cores, the suite beside other work) took more than 20 s to
 * answer, and a test must not fail for a slow machine.
 */
export const SAFETY_MS = 120_000;

export interface TestServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `ws://127.0.0.1:PORT/api/current` */
  rpcUrl: string;
  port: number;
  /** The seeded administrator's API key. */
  adminKey: string;
  /** The appliance the server serves (the same object `testAppliance` drives in-process). */
  appliance: Appliance;
  /** The same appliance with an embedded administrator session, for setting up state (createUserWithKey). */
  testAppliance: TestAppliance;
  stateDir: string;
  /** Stops the server; idempotent. Also registered to run when the test finishes. */
  close(graceMs?: number): Promise<void>;
}

/**
 * A real server on 127.0.0.1 (free port) over a real appliance on a temporary state directory.
 * Cleanup order at the end of the test (vitest runs onTestFinished hooks last-registered first):
 * clients opened later → this server → the appliance → the temporary directory.
 */
export async function startTestServer(
  settings?: Partial<ApplianceSettings>,
  server: Pick<ServerOptions, 'wsIdleTimeoutSeconds' | 'limits' | 'log' | 'minuteTimer'> = {},
): Promise<TestServer> {
  const t = await openTestAppliance(settings);
  // No real minute ticks the periodic snapshot tasks of a test's server (a test that sets the
  // appliance's clock would otherwise race the wall clock's); a test that wants ticks fires its own.
  const running = await startServer({
    appliance: t.appliance,
    host: '127.0.0.1',
    port: 0,
    minuteTimer: () => ({ stop: () => undefined }),
    ...server,
  });
  let closing: Promise<void> | null = null;
  const close = (graceMs?: number) => (closing ??= running.close(graceMs));
  // Calls deliberately left in flight (see the concurrency test) would hold a graceful close for
  // the default 5 s; at cleanup there is nothing left worth waiting for.
  onTestFinished(() => close(100));
  return {
    url: running.url,
    rpcUrl: running.rpcUrl,
    port: running.port,
    adminKey: t.adminKey,
    appliance: t.appliance,
    testAppliance: t,
    stateDir: t.stateDir,
    close,
  };
}

/** A JSON-RPC message as received (parsed), or `{ raw }` for a frame that is not JSON. */
/** stor's WebSocket transport to `server`, logged in with its admin key, closed when the test ends. */
export async function adminTransport(server: TestServer): Promise<RemoteTransport> {
  const transport = await RemoteTransport.open({
    endpoint: parseEndpoint(server.url),
    login: apiKeyLogin(server.adminKey),
    timeoutSeconds: 30,
  });
  onTestFinished(() => transport.close());
  return transport;
}

export type Message = Record<string, any>;

export interface RpcReply {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

export interface WsClient {
  ws: WebSocket;
  /** Every message received so far, in arrival order (call() replies included). */
  readonly messages: Message[];
  /** Sends an object as JSON, or a string as is. */
  send(msg: unknown): void;
  /** Sends a request (uuid id unless given) and resolves with the reply carrying that id. */
  call(method: string, params?: unknown[], id?: string | number | null): Promise<RpcReply>;
  /** Sends a request and resolves with its result; rejects if the reply is an error. */
  result<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** The next message after the read cursor (waits for it); advances the cursor. Skips replies call() took. */
  next(): Promise<Message>;
  /** The first message after the read cursor matching `predicate`; moves the cursor past it. */
  waitFor(predicate: (m: Message) => boolean, what?: string): Promise<Message>;
  /** Resolves when the socket has closed, with the close code and reason the client saw. */
  closed: Promise<{ code: number; reason: string }>;
  close(code?: number, reason?: string): void;
  terminate(): void;
}

function timeout<T>(promise: Promise<T>, what: string, ms = SAFETY_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out (${ms} ms safety net) waiting for ${what}`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** Opens a WebSocket to `rpcUrl`, waits for it to open, and terminates it when the test ends. */
export async function connectWs(rpcUrl: string, options?: WebSocket.ClientOptions): Promise<WsClient> {
  const ws = new WebSocket(rpcUrl, options);
  onTestFinished(() => ws.terminate());
  const messages: Message[] = [];
  let cursor = 0;
  const pending = new Map<string, (m: RpcReply) => void>();
  // Replies delivered to call() are not handed out again by next()/waitFor().
  const claimed = new WeakSet<Message>();
  let wake: (() => void) | null = null;

  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      wake?.();
    });
  });
  ws.on('message', (data, isBinary) => {
    const text = data.toString();
    let msg: Message;
    try {
      const parsed: unknown = JSON.parse(text);
      msg =
        parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
          ? (parsed as Message)
          : { raw: text, isBinary };
    } catch {
      msg = { raw: text, isBinary };
    }
    messages.push(msg);
    if ('id' in msg && ('result' in msg || 'error' in msg)) {
      const key = JSON.stringify(msg.id);
      const resolve = pending.get(key);
      if (resolve) {
        pending.delete(key);
        claimed.add(msg);
        resolve(msg as RpcReply);
      }
    }
    wake?.();
  });

  await timeout(
    new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`WebSocket upgrade refused: HTTP ${res.statusCode}`)),
      );
    }),
    `WebSocket open on ${rpcUrl}`,
  );
  // Errors after the open end in 'close'; the tests look at `closed`.
  ws.on('error', () => undefined);

  let isClosed = false;
  void closed.then(() => (isClosed = true));

  const send = (msg: unknown) => ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));

  const waitFor = (predicate: (m: Message) => boolean, what = 'a matching message') =>
    timeout(
      new Promise<Message>((resolve, reject) => {
        const scan = () => {
          while (cursor < messages.length) {
            const m = messages[cursor++]!;
            if (!claimed.has(m) && predicate(m)) {
              wake = null;
              resolve(m);
              return;
            }
          }
          if (isClosed) {
            wake = null;
            reject(new Error(`connection closed while waiting for ${what}`));
            return;
          }
          wake = scan;
        };
        scan();
      }),
      what,
    );

  const call = (method: string, params: unknown[] = [], id: string | number | null = randomUUID()) => {
    const key = JSON.stringify(id);
    const reply = new Promise<RpcReply>((resolve) => pending.set(key, resolve));
    send({ jsonrpc: '2.0', id, method, params });
    return timeout(reply, `the reply to ${method} (id ${key})`);
  };

  return {
    ws,
    messages,
    send,
    call,
    result: async <T>(method: string, params: unknown[] = []) => {
      const reply = await call(method, params);
      if (reply.error) throw new Error(`${method} failed: ${JSON.stringify(reply.error)}`);
      return reply.result as T;
    },
    next: () => waitFor(() => true, 'the next message'),
    waitFor,
    closed: closed,
    close: (code, reason) => ws.close(code, reason),
    terminate: () => ws.terminate(),
  };
}

/** Connects and logs in with `key`; fails the test if the login is refused. */
export async function loggedInWs(rpcUrl: string, key: string): Promise<WsClient> {
  const client = await connectWs(rpcUrl);
  const ok = await client.result('auth.login_with_api_key', [key]);
  if (ok !== true) throw new Error(`login refused: ${JSON.stringify(ok)}`);
  return client;
}

/** `POST /api/current` (or `path`) with an optional bearer key; returns status, headers and body text. */
export async function postRpc(
  url: string,
  body: unknown,
  options: { key?: string; path?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => RpcReply }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const res = await fetch(`${url}${options.path ?? '/api/current'}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(SAFETY_MS),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as RpcReply };
}
