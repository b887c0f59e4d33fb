import { randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import WebSocket from 'ws';
import { Appliance } from '../../src/core/appliance/appliance.js';
import { startServer, type RunningServer } from '../../src/core/server/server.js';
import { SAFETY_MS } from '../helpers/server.js';
/** aiohttp's answer to an exception the handler lets through (web_protocol.py handle_error), as 25.10.1's upload endpoint gives it. */
const AIOHTTP_500 = '500 Internal Server Error\n\nServer got itself in trouble';

/*
 * A corpus of malformed and hostile inputs for the three doors of `stor serve`: WebSocket and HTTP
 * POST `/api/current`, and `/_upload/`. Each input has one exact expected outcome. After each one
 * the server must still answer a fresh core.ping over a new WebSocket, nothing may have appeared
 * or changed outside `<state>/mnt/tank` (but the database files), in a canary directory the hostile
 * paths aim at, or on Object.prototype (the server runs in this process).
 *
 * One server for the whole file. Anonymous core.ping and logins are rate-limited per client
 * address (20 a minute, MW/utils/rate_limit/cache.py:15-18), so every connection comes from its own loopback address.
 * Inputs the integration tests already cover (websocket, http, upload) are not repeated here.
 */

const BOUNDARY = 'reliability-5f0c2a';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const UNIQUE = randomBytes(4).toString('hex');

let stateDir: string;
let canary: string;
let pool: string;
let appliance: Appliance;
let server: RunningServer;
let adminKey: string;

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'stor-rel-state-'));
  canary = mkdtempSync(join(tmpdir(), 'stor-rel-canary-'));
  writeFileSync(join(canary, 'existing.txt'), 'canary\n');
  appliance = Appliance.open({ stateDir });
  adminKey = readFileSync(join(stateDir, 'admin.key'), 'utf8').trim();
  server = await startServer({ appliance, host: '127.0.0.1', port: 0 });
  pool = join(stateDir, 'mnt/tank');
  // Ways out of the pool that a hostile target may try to use.
  symlinkSync(canary, join(pool, 'to-canary'));
  symlinkSync(join(canary, 'existing.txt'), join(pool, 'to-canary-file.txt'));
  symlinkSync(join(canary, 'missing.txt'), join(pool, 'dangling.txt'));
  symlinkSync('../..', join(pool, 'up'));
  mkdirSync(join(pool, 'docs'));
  writeFileSync(join(pool, 'docs/readme.txt'), 'in the pool\n');
  await openAdmin();
});

afterAll(async () => {
  admin?.terminate();
  await server?.close(100);
  appliance?.close();
  for (const dir of [stateDir, canary]) if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Clients

let hostCount = 0;
/** A loopback address not used before in this file: its own rate-limit window. */
function freshHost(): string {
  const n = hostCount++;
  return `127.0.${1 + Math.floor(n / 250)}.${2 + (n % 250)}`;
}

type Msg = Record<string, any>;

interface WsClient {
  ws: WebSocket;
  /** The next message (parsed JSON); fails after the safety net. */
  next(): Promise<Msg>;
  closed: Promise<{ code: number; reason: string }>;
  messages: Msg[];
}

async function openWs(login = false): Promise<WsClient> {
  const ws = new WebSocket(server.rpcUrl, { localAddress: freshHost() });
  onTestFinished(() => ws.terminate());
  const messages: Msg[] = [];
  let cursor = 0;
  let wake: (() => void) | null = null;
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()) as Msg);
    wake?.();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      wake?.();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.on('error', () => undefined);
  const next = () =>
    new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('safety timeout waiting for a message')), SAFETY_MS);
      const check = () => {
        if (cursor < messages.length) {
          clearTimeout(timer);
          wake = null;
          resolve(messages[cursor++]!);
        } else if (ws.readyState === WebSocket.CLOSED) {
          clearTimeout(timer);
          reject(new Error('closed while waiting for a message'));
        } else wake = check;
      };
      check();
    });
  if (login) {
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'login', method: 'auth.login_with_api_key', params: [adminKey] }));
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 'login', result: true });
    // From here on, `messages` holds what the input itself brought.
    messages.length = 0;
    cursor = 0;
  }
  return { ws, next, closed, messages };
}

interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with node:http, so nothing is added (fetch adds a Content-Type to a string body). */
function http(options: {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  chunked?: boolean;
}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    if (body && !options.chunked) headers['content-length'] = String(body.length);
    const req = request(
      `${server.url}${options.path}`,
      { method: options.method ?? 'POST', headers, localAddress: freshHost(), timeout: SAFETY_MS, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('safety timeout')));
    req.on('error', reject);
    if (body && options.chunked) {
      // Several chunks, no Content-Length.
      for (let i = 0; i < body.length; i += 16 * 1024) req.write(body.subarray(i, i + 16 * 1024));
      req.end();
    } else req.end(body);
  });
}

/** One administrator connection for the checks, logged in once (a key login costs a slow hash). */
let admin: WebSocket;
const pending = new Map<number, (reply: Msg) => void>();
let nextId = 1;

async function openAdmin(): Promise<void> {
  admin = new WebSocket(server.rpcUrl, { localAddress: freshHost() });
  admin.on('message', (data) => {
    const reply = JSON.parse(data.toString()) as Msg;
    pending.get(reply.id as number)?.(reply);
    pending.delete(reply.id as number);
  });
  await new Promise<void>((resolve, reject) => {
    admin.once('open', () => resolve());
    admin.once('error', reject);
  });
  expect(await rpcAsAdmin('auth.login_with_api_key', [adminKey])).toBe(true);
}

async function rpcAsAdmin(method: string, params: unknown[] = []): Promise<any> {
  const id = nextId++;
  const reply = await new Promise<Msg>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`safety timeout waiting for ${method}`)), SAFETY_MS);
    pending.set(id, (r) => {
      clearTimeout(timer);
      resolve(r);
    });
    admin.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

// ---------------------------------------------------------------------------------------------
// Invariants checked after every input

type Listing = [string, string][];

function listing(root: string, skip: (rel: string) => boolean = () => false): Listing {
  const out: Listing = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (skip(r)) continue;
      const st = lstatSync(join(root, r));
      if (st.isSymbolicLink()) out.push([r, `link -> ${readlinkSync(join(root, r))}`]);
      else if (st.isDirectory()) {
        // A directory's own times change when the database's files come and go; its entries say enough.
        out.push([r, `dir ${(st.mode & 0o7777).toString(8)}`]);
        walk(r);
      } else out.push([r, `file ${st.size} ${st.mtimeMs} ${(st.mode & 0o7777).toString(8)}`]);
    }
  };
  walk('');
  return out;
}

const outsidePool = (rel: string) =>
  rel === 'mnt/tank' || rel.startsWith('mnt/tank/') || /^stor\.db(-wal|-shm|-journal)?$/.test(rel);

interface Snapshot {
  state: Listing;
  pool: Listing;
  canary: Listing;
  prototype: string[];
  lastJob: number;
}

async function snapshot(): Promise<Snapshot> {
  const jobs = (await rpcAsAdmin('core.get_jobs', [[], { select: ['id'] }])) as { id: number }[];
  return {
    state: listing(stateDir, outsidePool),
    pool: listing(pool),
    canary: listing(canary),
    prototype: Object.getOwnPropertyNames(Object.prototype).sort(),
    lastJob: Math.max(0, ...jobs.map((j) => j.id)),
  };
}

/** The jobs started since `since`, once none of them is running any more. */
async function settledJobsSince(since: number): Promise<Msg[]> {
  let jobs: Msg[] = [];
  await vi.waitFor(
    async () => {
      jobs = (await rpcAsAdmin('core.get_jobs', [[['id', '>', since]], { order_by: ['id'] }])) as Msg[];
      expect(jobs.filter((j) => j.state === 'RUNNING' || j.state === 'WAITING')).toEqual([]);
    },
    { timeout: SAFETY_MS, interval: 20 },
  );
  return jobs;
}

/** The server answers a new connection, and nothing outside the pool changed. */
async function expectUnharmed(before: Snapshot, options: { lands?: string[]; escapes?: string[] } = {}): Promise<void> {
  const client = await openWs();
  client.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'alive', method: 'core.ping', params: [] }));
  expect(await client.next()).toEqual({ jsonrpc: '2.0', id: 'alive', result: 'pong' });
  client.ws.close();

  expect(listing(stateDir, outsidePool)).toEqual(before.state);
  expect(listing(canary)).toEqual(before.canary);
  expect(readFileSync(join(canary, 'existing.txt'), 'utf8')).toBe('canary\n');
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before.prototype);
  // The pool changed by exactly the files the input was meant to land, and no temporary file remains.
  const landed = new Set(options.lands ?? []);
  const isLanded = (rel: string) => [...landed].some((l) => rel === l || l.startsWith(`${rel}/`));
  const after = listing(pool);
  expect(after.filter(([rel]) => !isLanded(rel))).toEqual(before.pool.filter(([rel]) => !isLanded(rel)));
  for (const l of landed) expect(existsSync(join(pool, l)), l).toBe(true);
  expect(after.filter(([rel]) => rel.includes('.stor-put-'))).toEqual([]);
  for (const path of options.escapes ?? []) expect(existsSync(path), path).toBe(false);
}

// ---------------------------------------------------------------------------------------------
// Expected replies

/**
 * Python 3.11's json.loads words for `text` (`str(JSONDecodeError)`, what 25.10.1 answers with
 * -32700, MW/api/base/server/ws_handler/rpc.py:249-251), computed with CPython 3.11.7.
 */
const PYTHON_WORDS: Record<string, string> = {
  '{"jsonrpc":"2.0","id":1,"method":"core.pi': 'Unterminated string starting at: line 1 column 34 (char 33)',
  '{"jsonrpc":"2.0","id":12': "Expecting ',' delimiter: line 1 column 25 (char 24)",
  '{"jsonrpc":"2.0","id":"\\u00': 'Invalid \\uXXXX escape: line 1 column 25 (char 24)',
  '\ufeff{"jsonrpc":"2.0","id":1,"method":"core.ping"}':
    'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)',
  '\ufeff{"jsonrpc":"2.0","id":1,"method":"core.ping","params":[]}':
    'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)',
  '{"jsonrpc":"2.0","id":1,"method":"core.ping"} x': 'Extra data: line 1 column 47 (char 46)',
  '{"jsonrpc":"2.0","id":1,"method":"core.ping"}{"jsonrpc":"2.0","id":2,"method":"core.ping"}':
    'Extra data: line 1 column 46 (char 45)',
  'method=filesystem.put&params=/mnt/tank/r.txt': 'Expecting value: line 1 column 1 (char 0)',
  // 25.10.1 fails the decoding of the bytes first ("'utf-8' codec can't decode byte 0xff in position
  // 27: invalid start byte"); stor reads the byte as U+FFFD and says what Python says of that text.
  '{"method":"filesystem.put",\ufffd"params":["/mnt/tank/r.txt"]}':
    'Expecting property name enclosed in double quotes: line 1 column 28 (char 27)',
  "{'jsonrpc':'2.0','id':1,'method':'core.ping'}":
    'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)',
  '{"jsonrpc":"2.0","id":"a\u0001b","method":"core.ping"}': 'Invalid control character at: line 1 column 25 (char 24)',
};

function parserMessage(text: string): string {
  const words = PYTHON_WORDS[text];
  if (words === undefined) throw new Error(`no Python words recorded for ${JSON.stringify(text.slice(0, 40))}`);
  return words;
}

const parseError = (text: string) => ({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32700, message: parserMessage(text) },
});
const parseErrorWith = (message: string) => ({ jsonrpc: '2.0', id: null, error: { code: -32700, message } });
const invalidRequest = (id: unknown, message: string) => ({ jsonrpc: '2.0', id, error: { code: -32600, message } });
const notFound = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method does not exist' } });
const ok = (id: unknown, result: unknown) => ({ jsonrpc: '2.0', id, result });
const invalidParams = (id: unknown, triples: [string | null, string, number][]) => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32602,
    message: 'Invalid params',
    data: expect.objectContaining({
      error: 22,
      errname: 'EINVAL',
      reason: triples.map(([a, m]) => `[EINVAL] ${a}: ${m}\n`).join(''),
      extra: triples,
    }),
  },
});
const callError = (id: unknown, errno: number, errname: string, reason: string, cls: string) => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32001,
    message: 'Method call error',
    data: expect.objectContaining({ error: errno, errname, reason, trace: expect.objectContaining({ class: cls }) }),
  },
});
/** What 25.10.1 does with input too deep for the interpreter, in this runtime's words. */
const stackOverflow = (id: unknown) => callError(id, 22, 'EINVAL', 'Maximum call stack size exceeded', 'RangeError');

const BAD_ID = "'id' member must be of type null, string or number";
const BAD_JSONRPC = "'jsonrpc' member must be of type string and must be exactly '2.0'";
const BAD_METHOD = "'method' member must be of type string";
const BAD_PARAMS = "'params' member must be of type array";

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);
const nestedObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const req = (id: string, method: string, params: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":${method},"params":${params}}`;

/** A core.ping of exactly `length` characters, padded with `fill`. */
function pingOfLength(length: number, id: string, fill = 'x'): string {
  const base = JSON.stringify({ jsonrpc: '2.0', id, method: 'core.ping', params: [], pad: '' });
  const text = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'core.ping',
    params: [],
    pad: fill.repeat(length - base.length),
  });
  if (text.length !== length) throw new Error('pad');
  return text;
}

// ---------------------------------------------------------------------------------------------
// WebSocket /api/current

type WsExpect =
  { reply: unknown } | { close: { code: number; reason?: string } } | { silent: true } | { autopong: true };

interface WsCase {
  name: string;
  login?: boolean;
  /** A string is a text frame; a Buffer goes as a text frame of those very bytes unless `binary`. */
  send: string | Buffer | ((ws: WebSocket) => void);
  binary?: boolean;
  expect: WsExpect;
}

const INVALID_UTF8 = Buffer.concat([
  Buffer.from('{"jsonrpc":"2.0","id":1,"method":"core.ping","pad":"'),
  Buffer.from([0xff, 0xfe]),
  Buffer.from('"}'),
]);

const wsCases: WsCase[] = [
  // Truncated and broken JSON: -32700, id always null.
  {
    name: 'truncated inside a string',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.pi',
    expect: { reply: parseError('{"jsonrpc":"2.0","id":1,"method":"core.pi') },
  },
  {
    name: 'truncated inside a number',
    send: '{"jsonrpc":"2.0","id":12',
    expect: { reply: parseError('{"jsonrpc":"2.0","id":12') },
  },
  {
    name: 'truncated inside a \\u escape',
    send: '{"jsonrpc":"2.0","id":"\\u00',
    expect: { reply: parseError('{"jsonrpc":"2.0","id":"\\u00') },
  },
  {
    name: 'whitespace only',
    send: ' \n\t ',
    expect: { reply: parseErrorWith('Expecting value: line 2 column 3 (char 4)') },
  },
  {
    name: 'a byte-order mark before the object',
    send: '\ufeff{"jsonrpc":"2.0","id":1,"method":"core.ping"}',
    expect: { reply: parseError('\ufeff{"jsonrpc":"2.0","id":1,"method":"core.ping"}') },
  },
  {
    name: 'trailing garbage after the object',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.ping"} x',
    expect: { reply: parseError('{"jsonrpc":"2.0","id":1,"method":"core.ping"} x') },
  },
  {
    name: 'two objects in one frame',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.ping"}{"jsonrpc":"2.0","id":2,"method":"core.ping"}',
    expect: {
      reply: parseError('{"jsonrpc":"2.0","id":1,"method":"core.ping"}{"jsonrpc":"2.0","id":2,"method":"core.ping"}'),
    },
  },
  {
    name: 'single-quoted strings',
    send: "{'jsonrpc':'2.0','id':1,'method':'core.ping'}",
    expect: { reply: parseError("{'jsonrpc':'2.0','id':1,'method':'core.ping'}") },
  },
  // Python reads NaN (a float: no valid id) and echoes it; JSON has no NaN, so stor's echo is null.
  {
    name: 'NaN as the id',
    send: '{"jsonrpc":"2.0","id":NaN,"method":"core.ping"}',
    expect: { reply: invalidRequest(null, BAD_ID) },
  },
  {
    name: 'a raw control character inside a string',
    send: '{"jsonrpc":"2.0","id":"a\u0001b","method":"core.ping"}',
    expect: { reply: parseError('{"jsonrpc":"2.0","id":"a\u0001b","method":"core.ping"}') },
  },

  // Wrong types in the envelope.
  {
    name: 'jsonrpc null',
    send: '{"jsonrpc":null,"id":1,"method":"core.ping"}',
    expect: { reply: invalidRequest(1, BAD_JSONRPC) },
  },
  {
    name: 'jsonrpc "2.00"',
    send: '{"jsonrpc":"2.00","id":1,"method":"core.ping"}',
    expect: { reply: invalidRequest(1, BAD_JSONRPC) },
  },
  // Echoed as sent (MW/api/base/server/ws_handler/rpc.py:309-311).
  {
    name: 'id an array',
    send: '{"jsonrpc":"2.0","id":[1],"method":"core.ping"}',
    expect: { reply: invalidRequest([1], BAD_ID) },
  },
  {
    name: 'id true (a Python int)',
    send: '{"jsonrpc":"2.0","id":true,"method":"core.ping"}',
    expect: { reply: ok(true, 'pong') },
  },
  { name: 'id -0', send: '{"jsonrpc":"2.0","id":-0,"method":"core.ping"}', expect: { reply: ok(0, 'pong') } },
  {
    name: 'id 1e400 (infinite once parsed)',
    send: '{"jsonrpc":"2.0","id":1e400,"method":"core.ping"}',
    expect: { reply: invalidRequest(null, BAD_ID) },
  },
  {
    name: 'id 2**64 (not exactly representable: never answered under another id)',
    send: '{"jsonrpc":"2.0","id":18446744073709551616,"method":"core.ping"}',
    expect: { reply: invalidRequest(null, BAD_ID) },
  },
  {
    name: 'id of 400 digits',
    send: `{"jsonrpc":"2.0","id":${'9'.repeat(400)},"method":"core.ping"}`,
    expect: { reply: invalidRequest(null, BAD_ID) },
  },
  {
    name: 'id 2**53 - 1 (the largest exact one)',
    send: '{"jsonrpc":"2.0","id":9007199254740991,"method":"core.ping"}',
    expect: { reply: ok(9007199254740991, 'pong') },
  },
  {
    name: 'method null',
    send: '{"jsonrpc":"2.0","id":1,"method":null}',
    expect: { reply: invalidRequest(1, BAD_METHOD) },
  },
  {
    name: 'method an array',
    send: '{"jsonrpc":"2.0","id":1,"method":["core.ping"]}',
    expect: { reply: invalidRequest(1, BAD_METHOD) },
  },
  {
    name: 'method with a NUL',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.ping\\u0000"}',
    expect: { reply: notFound(1) },
  },
  {
    name: 'method with a NUL in the middle',
    send: '{"jsonrpc":"2.0","id":1,"method":"core\\u0000.ping"}',
    expect: { reply: notFound(1) },
  },
  {
    name: 'method with a trailing space',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.ping "}',
    expect: { reply: notFound(1) },
  },
  { name: 'method __proto__', send: '{"jsonrpc":"2.0","id":1,"method":"__proto__"}', expect: { reply: notFound(1) } },
  {
    name: 'method constructor',
    send: '{"jsonrpc":"2.0","id":1,"method":"constructor"}',
    expect: { reply: notFound(1) },
  },
  { name: 'method toString', send: '{"jsonrpc":"2.0","id":1,"method":"toString"}', expect: { reply: notFound(1) } },
  {
    name: 'params null',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.ping","params":null}',
    expect: { reply: invalidRequest(1, BAD_PARAMS) },
  },
  {
    name: 'params true',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.ping","params":true}',
    expect: { reply: invalidRequest(1, BAD_PARAMS) },
  },
  {
    name: 'params a number',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.ping","params":3}',
    expect: { reply: invalidRequest(1, BAD_PARAMS) },
  },

  // Duplicate keys: the last one wins, as with Python's json.
  {
    name: 'duplicate id and method keys',
    send: '{"jsonrpc":"2.0","id":1,"id":2,"method":"no.such","method":"core.ping"}',
    expect: { reply: ok(2, 'pong') },
  },
  {
    name: 'duplicate jsonrpc keys, the last one wrong',
    send: '{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"core.ping"}',
    expect: { reply: invalidRequest(1, BAD_JSONRPC) },
  },
  {
    name: 'duplicate params keys, the last one an object',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.ping","params":[],"params":{}}',
    expect: { reply: invalidRequest(1, BAD_PARAMS) },
  },

  // Prototype keys: plain data, never the prototype.
  {
    name: '__proto__ member in the envelope',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.ping","__proto__":{"method":"auth.me","polluted":1}}',
    expect: { reply: ok(1, 'pong') },
  },
  {
    name: '__proto__ in core.set_options',
    send: req('1', '"core.set_options"', '[{"__proto__":{"legacy_jobs":false,"polluted":1}}]'),
    expect: { reply: ok(1, { legacy_jobs: true, private_methods: false, py_exceptions: false }) },
  },
  {
    name: '__proto__ in query options',
    login: true,
    send: req('1', '"privilege.query"', '[[["id","=",1]],{"__proto__":{"get":true},"select":["id"]}]'),
    expect: { reply: ok(1, [{ id: 1 }]) },
  },

  // Strings that are not quite text.
  {
    name: 'a lone high surrogate in the id',
    send: '{"jsonrpc":"2.0","id":"\\ud800","method":"core.ping"}',
    expect: { reply: ok('\ud800', 'pong') },
  },
  {
    name: 'a lone low surrogate in the method',
    send: '{"jsonrpc":"2.0","id":1,"method":"core.\\udc00ping"}',
    expect: { reply: notFound(1) },
  },
  {
    name: 'a lone surrogate in a path',
    login: true,
    send: req('1', '"filesystem.stat"', '["/mnt/tank/\\udc80"]'),
    expect: { reply: callError(1, 2, 'ENOENT', '[ENOENT] Path /mnt/tank/\udc80 not found', 'CallError') },
  },
  { name: 'invalid UTF-8 bytes in a text frame', send: INVALID_UTF8, expect: { close: { code: 1007 } } },
  {
    name: 'an overlong UTF-8 encoding (C0 AF)',
    send: Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
    expect: { close: { code: 1007 } },
  },
  {
    name: 'a UTF-8-encoded surrogate (ED A0 80)',
    send: Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]),
    expect: { close: { code: 1007 } },
  },
  {
    name: 'a text frame cut in the middle of a UTF-8 character',
    send: Buffer.from([0x22, 0xe2, 0x82]),
    expect: { close: { code: 1007 } },
  },

  // Frame types and sizes.
  {
    name: 'a binary frame after login',
    login: true,
    send: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"core.ping"}'),
    binary: true,
    expect: { close: { code: 1003, reason: 'Invalid websocket message type: <WSMsgType.BINARY: 2>' } },
  },
  {
    name: 'an empty binary frame',
    send: Buffer.alloc(0),
    binary: true,
    expect: { close: { code: 1003, reason: 'Invalid websocket message type: <WSMsgType.BINARY: 2>' } },
  },
  {
    name: '100 000 characters before login',
    send: pingOfLength(100_000, 'big'),
    expect: { close: { code: 1007, reason: 'Anonymous connection max message length is 8 kB' } },
  },
  {
    name: '100 000 characters after login',
    login: true,
    send: pingOfLength(100_000, 'big'),
    expect: { close: { code: 1009, reason: 'Max message length is 64 kB' } },
  },
  {
    name: '3 MiB before login (past the transport limit)',
    send: 'x'.repeat(3 * 1024 * 1024),
    expect: { close: { code: 1009, reason: '' } },
  },
  {
    name: '3 MiB after login (past the transport limit)',
    login: true,
    send: 'x'.repeat(3 * 1024 * 1024),
    expect: { close: { code: 1009, reason: '' } },
  },
  {
    name: '8192 two-byte characters before login (the limit counts characters, not bytes)',
    send: pingOfLength(8192, 'wide', 'é'),
    expect: { reply: ok('wide', 'pong') },
  },
  {
    name: 'a message in three fragments',
    send: (ws) => {
      ws.send('{"jsonrpc":"2.0",', { fin: false });
      ws.send('"id":"frag",', { fin: false });
      ws.send('"method":"core.ping"}', { fin: true });
    },
    expect: { reply: ok('frag', 'pong') },
  },
  {
    name: 'a ping control frame with a payload',
    send: (ws) => ws.ping(Buffer.from('are you there')),
    expect: { autopong: true },
  },

  // Deep nesting and huge numbers.
  {
    name: '10 000 nested arrays as params',
    login: true,
    send: req('1', '"core.ping"', nested(10_000)),
    expect: { reply: invalidParams(1, [['', 'Too many arguments (expected 0, found 1)', 22]]) },
  },
  {
    name: '4000 nested arrays as params before login',
    send: req('1', '"core.ping"', nested(4000)),
    expect: { reply: invalidParams(1, [['', 'Too many arguments (expected 0, found 1)', 22]]) },
  },
  {
    name: '10 000 nested arrays as a query filter',
    login: true,
    send: req('1', '"privilege.query"', `[${nested(10_000)}]`),
    expect: { reply: stackOverflow(1) },
  },
  {
    name: '32 000 nested arrays as query-options select (a 64 kB frame)',
    login: true,
    send: req('1', '"privilege.query"', `[[],{"select":${nested(32_000)}}]`),
    expect: { reply: stackOverflow(1) },
  },
  {
    name: '10 000 nested arrays as a filter value',
    login: true,
    send: req('1', '"user.query"', `[[["username","in",${nested(10_000)}]]]`),
    expect: { reply: ok(1, []) },
  },
  {
    name: '10 000 nested objects as the filters',
    login: true,
    send: req('1', '"privilege.query"', `[${nestedObject(10_000)}]`),
    expect: { reply: invalidParams(1, [['filters', 'Input should be a valid list', 22]]) },
  },
  {
    name: '10 000 nested arrays as a role name',
    login: true,
    send: req('1', '"privilege.create"', `[{"name":"deep","web_shell":false,"roles":${nested(10_000)}}]`),
    expect: { reply: invalidParams(1, [['privilege_create.roles.0', 'Input should be a valid string', 22]]) },
  },
  {
    name: '10 000 nested arrays in a notification',
    login: true,
    send: `{"jsonrpc":"2.0","method":"privilege.query","params":[${nested(10_000)}]}`,
    expect: { silent: true },
  },
  {
    name: '1e400 as a job id',
    login: true,
    send: req('1', '"core.job_wait"', '[1e400]'),
    expect: { reply: invalidParams(1, [['id', 'Input should be a valid integer', 22]]) },
  },
  {
    name: '2**64 as a job id',
    login: true,
    send: req('1', '"core.job_wait"', '[18446744073709551616]'),
    expect: { reply: invalidParams(1, [['id', 'Input should be less than or equal to 9007199254740991', 22]]) },
  },
  {
    name: '-1e400 as a privilege id',
    login: true,
    send: req('1', '"privilege.get_instance"', '[-1e400]'),
    expect: { reply: invalidParams(1, [['id', 'Input should be a valid integer', 22]]) },
  },
];

describe('WebSocket /api/current: malformed frames', () => {
  for (const c of wsCases) {
    it(c.name, async () => {
      const before = await snapshot();
      const client = await openWs(c.login);
      if (typeof c.send === 'function') c.send(client.ws);
      else if (Buffer.isBuffer(c.send)) client.ws.send(c.send, { binary: c.binary === true });
      else client.ws.send(c.send);

      const e = c.expect;
      if ('reply' in e) {
        expect(await client.next()).toEqual(e.reply);
        // Exactly one reply, and the connection keeps working.
        client.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'core.set_options', params: [{}] }));
        expect((await client.next()).id).toBe('after');
      } else if ('close' in e) {
        const closed = await client.closed;
        expect(closed.code).toBe(e.close.code);
        if (e.close.reason !== undefined) expect(closed.reason).toBe(e.close.reason);
        expect(client.messages).toEqual([]);
      } else if ('silent' in e) {
        client.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'core.set_options', params: [{}] }));
        expect((await client.next()).id).toBe('after');
        expect(client.messages).toHaveLength(1);
      } else {
        const pong = await new Promise<string>((resolve) => client.ws.once('pong', (data) => resolve(data.toString())));
        expect(pong).toBe('are you there');
        expect(client.ws.readyState).toBe(WebSocket.OPEN);
      }
      await expectUnharmed(before);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// HTTP POST /api/current

interface HttpCase {
  name: string;
  method?: string;
  headers?: Record<string, string>;
  /** Send the admin key as a bearer credential. */
  key?: boolean;
  body?: string | Buffer;
  chunked?: boolean;
  status: number;
  /** A string is the exact text; anything else is compared with the parsed JSON body. */
  expectBody: unknown;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const PING = '{"jsonrpc":"2.0","id":1,"method":"core.ping","params":[]}';

const httpCases: HttpCase[] = [
  { name: 'no Content-Type', headers: {}, body: PING, status: 200, expectBody: ok(1, 'pong') },
  {
    name: 'Content-Type text/plain',
    headers: { 'content-type': 'text/plain' },
    body: PING,
    status: 200,
    expectBody: ok(1, 'pong'),
  },
  {
    name: 'a GET with a JSON body',
    method: 'GET',
    headers: JSON_TYPE,
    body: PING,
    status: 400,
    expectBody: 'No WebSocket UPGRADE hdr: None\n Can "Upgrade" only to "WebSocket".',
  },
  {
    name: 'DELETE',
    method: 'DELETE',
    headers: JSON_TYPE,
    body: PING,
    status: 405,
    expectBody: '405: Method Not Allowed',
  },
  { name: 'OPTIONS', method: 'OPTIONS', status: 405, expectBody: '405: Method Not Allowed' },
  {
    name: 'an empty body',
    headers: JSON_TYPE,
    body: '',
    status: 200,
    expectBody: parseErrorWith('Expecting value: line 1 column 1 (char 0)'),
  },
  {
    name: 'truncated inside a string',
    headers: JSON_TYPE,
    body: '{"jsonrpc":"2.0","id":1,"method":"core.pi',
    status: 200,
    expectBody: parseError('{"jsonrpc":"2.0","id":1,"method":"core.pi'),
  },
  {
    name: 'invalid UTF-8 bytes',
    headers: JSON_TYPE,
    body: INVALID_UTF8,
    status: 200,
    expectBody: parseErrorWith('Invalid UTF-8 in the request body'),
  },
  {
    name: 'invalid UTF-8 inside the id (never answered under a replaced id)',
    headers: JSON_TYPE,
    body: Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"'),
      Buffer.from([0xc0, 0xff]),
      Buffer.from('","method":"core.ping"}'),
    ]),
    status: 200,
    expectBody: parseErrorWith('Invalid UTF-8 in the request body'),
  },
  {
    name: 'a byte-order mark',
    headers: JSON_TYPE,
    body: `\ufeff${PING}`,
    status: 200,
    expectBody: parseError(`\ufeff${PING}`),
  },
  {
    name: 'id 1e400',
    headers: JSON_TYPE,
    body: '{"jsonrpc":"2.0","id":1e400,"method":"core.ping"}',
    status: 200,
    expectBody: invalidRequest(null, BAD_ID),
  },
  {
    name: 'id 2**64',
    headers: JSON_TYPE,
    body: '{"jsonrpc":"2.0","id":18446744073709551616,"method":"core.ping"}',
    status: 200,
    expectBody: invalidRequest(null, BAD_ID),
  },
  {
    name: 'id true',
    headers: JSON_TYPE,
    body: '{"jsonrpc":"2.0","id":true,"method":"core.ping"}',
    status: 200,
    expectBody: ok(true, 'pong'),
  },
  {
    name: 'method with a NUL',
    headers: JSON_TYPE,
    body: '{"jsonrpc":"2.0","id":1,"method":"core.ping\\u0000"}',
    status: 200,
    expectBody: notFound(1),
  },
  {
    name: 'method null',
    headers: JSON_TYPE,
    body: '{"jsonrpc":"2.0","id":1,"method":null}',
    status: 200,
    expectBody: invalidRequest(1, BAD_METHOD),
  },
  {
    name: 'params null',
    headers: JSON_TYPE,
    body: '{"jsonrpc":"2.0","id":1,"method":"core.ping","params":null}',
    status: 200,
    expectBody: invalidRequest(1, BAD_PARAMS),
  },
  {
    name: 'duplicate keys',
    headers: JSON_TYPE,
    body: '{"jsonrpc":"2.0","id":1,"id":"two","method":"no.such","method":"core.ping"}',
    status: 200,
    expectBody: ok('two', 'pong'),
  },
  {
    name: 'a lone surrogate in the id',
    headers: JSON_TYPE,
    body: '{"jsonrpc":"2.0","id":"\\udfff","method":"core.ping"}',
    status: 200,
    expectBody: ok('\udfff', 'pong'),
  },
  {
    name: '10 000 nested arrays as params',
    headers: JSON_TYPE,
    key: true,
    body: req('1', '"core.ping"', nested(10_000)),
    status: 200,
    expectBody: invalidParams(1, [['', 'Too many arguments (expected 0, found 1)', 22]]),
  },
  {
    name: '32 000 nested arrays as a query filter',
    headers: JSON_TYPE,
    key: true,
    body: req('1', '"privilege.query"', `[${nested(32_000)}]`),
    status: 200,
    expectBody: stackOverflow(1),
  },
  {
    name: '2**64 as a job id',
    headers: JSON_TYPE,
    key: true,
    body: req('1', '"core.job_wait"', '[18446744073709551616]'),
    status: 200,
    expectBody: invalidParams(1, [['id', 'Input should be less than or equal to 9007199254740991', 22]]),
  },
  {
    name: 'a body over 64 KiB',
    headers: JSON_TYPE,
    body: pingOfLength(70_000, 'big'),
    status: 413,
    expectBody: '413: Request body larger than 65536 bytes',
  },
  {
    name: 'a chunked body over 64 KiB (no Content-Length)',
    headers: { ...JSON_TYPE, 'transfer-encoding': 'chunked' },
    chunked: true,
    body: pingOfLength(200_000, 'big'),
    status: 413,
    expectBody: '413: Request body larger than 65536 bytes',
  },
  {
    name: 'a bearer credential of 300 junk characters',
    headers: { ...JSON_TYPE, authorization: `Bearer ${'%'.repeat(300)}` },
    body: '{"jsonrpc":"2.0","id":1,"method":"auth.me"}',
    status: 200,
    expectBody: callError(1, 207, 'ENOTAUTHENTICATED', '[ENOTAUTHENTICATED] Not authenticated', 'CallError'),
  },
  {
    name: 'Basic credentials (only bearer keys are taken)',
    headers: { ...JSON_TYPE, authorization: `Basic ${Buffer.from('truenas_admin:secret').toString('base64')}` },
    body: '{"jsonrpc":"2.0","id":1,"method":"auth.me"}',
    status: 200,
    expectBody: callError(1, 207, 'ENOTAUTHENTICATED', '[ENOTAUTHENTICATED] Not authenticated', 'CallError'),
  },
];

describe('HTTP POST /api/current: malformed requests', () => {
  for (const c of httpCases) {
    it(c.name, async () => {
      const before = await snapshot();
      const headers = { ...c.headers, ...(c.key ? { authorization: `Bearer ${adminKey}` } : {}) };
      const res = await http({
        method: c.method ?? 'POST',
        path: '/api/current',
        headers,
        ...(c.body !== undefined ? { body: c.body } : {}),
        ...(c.chunked ? { chunked: true } : {}),
      });
      expect(res.status).toBe(c.status);
      if (typeof c.expectBody === 'string') expect(res.body).toBe(c.expectBody);
      else {
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(JSON.parse(res.body)).toEqual(c.expectBody);
      }
      await expectUnharmed(before);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// POST /_upload/

function part(name: string, body: string | Buffer, filename?: string): Buffer {
  const disposition = `Content-Disposition: form-data; name="${name}"${filename !== undefined ? `; filename="${filename}"` : ''}`;
  const type = filename !== undefined ? 'Content-Type: application/octet-stream\r\n' : '';
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\n${disposition}\r\n${type}\r\n`),
    Buffer.from(body),
    Buffer.from('\r\n'),
  ]);
}
const END = Buffer.from(`--${BOUNDARY}--\r\n`);
const dataPart = (data: unknown) =>
  part('data', typeof data === 'string' || Buffer.isBuffer(data) ? data : JSON.stringify(data));
const filePart = (bytes: string | Buffer = 'PAYLOAD') => part('file', bytes, 'payload.bin');
const putData = (...params: unknown[]) => dataPart({ method: 'filesystem.put', params });
const body = (...parts: Buffer[]) => Buffer.concat([...parts, END]);

interface UploadCase {
  name: string;
  method?: string;
  /** Replaces the multipart Content-Type; null sends none. */
  contentType?: string | null;
  body: Buffer;
  status: number;
  text: string;
  /** A job started (the file part was reached) and ended like this. */
  job?: { state: 'FAILED' | 'SUCCESS'; error?: string };
  lands?: string[];
  escapes?: string[];
}

const uploadCases: UploadCase[] = [
  {
    name: 'no Content-Type',
    contentType: null,
    body: body(putData('/mnt/tank/r.txt'), filePart()),
    status: 500,
    text: AIOHTTP_500,
  },
  {
    name: 'multipart without a boundary parameter',
    contentType: 'multipart/form-data',
    body: body(putData('/mnt/tank/r.txt'), filePart()),
    status: 500,
    text: AIOHTTP_500,
  },
  {
    name: 'JSON instead of multipart',
    contentType: 'application/json',
    body: Buffer.from('{"method":"filesystem.put","params":["/mnt/tank/r.txt"]}'),
    status: 500,
    text: AIOHTTP_500,
  },
  {
    name: 'a boundary that is not the one in the body',
    contentType: 'multipart/form-data; boundary=another-boundary',
    body: body(putData('/mnt/tank/r.txt'), filePart()),
    status: 500,
    text: AIOHTTP_500,
  },
  // No first boundary: aiohttp's MultipartReader raises outside the handler's tries (file_app.py:119-121).
  {
    name: 'garbage instead of parts',
    body: Buffer.from('garbage, not a multipart body'),
    status: 500,
    text: AIOHTTP_500,
  },
  { name: 'an empty body', body: Buffer.alloc(0), status: 500, text: AIOHTTP_500 },
  {
    name: 'no closing delimiter after a whole file part',
    body: Buffer.concat([putData('/mnt/tank/r.txt'), filePart()]),
    status: 400,
    text: 'malformed multipart body: Unexpected end of form',
    job: { state: 'FAILED', error: "[EFAULT] Unable to put contents at '/mnt/tank/r.txt': Unexpected end of form" },
  },
  {
    name: 'a foreign field first, then data and file',
    body: body(part('note', 'hello'), putData('/mnt/tank/r.txt'), filePart()),
    status: 405,
    text: '"data" part must be the first on payload',
  },
  {
    name: 'file, then data (wrong order)',
    body: body(filePart(), putData('/mnt/tank/r.txt')),
    status: 405,
    text: '"data" part must be the first on payload',
  },
  {
    name: 'data twice, then file',
    body: body(putData('/mnt/tank/r.txt'), putData('/mnt/tank/r2.txt'), filePart()),
    status: 405,
    text: '"file" not found as second part on payload',
  },
  {
    name: 'data, file, data',
    body: body(putData('/mnt/tank/r.txt'), filePart(), putData('/mnt/tank/r2.txt')),
    status: 405,
    text: "Unknown payload part 'data'",
    job: {
      state: 'FAILED',
      error: "[EFAULT] Unable to put contents at '/mnt/tank/r.txt': Unknown payload part 'data'",
    },
  },
  {
    name: 'data form-encoded instead of JSON',
    body: body(dataPart('method=filesystem.put&params=/mnt/tank/r.txt'), filePart()),
    status: 400,
    text: parserMessage('method=filesystem.put&params=/mnt/tank/r.txt'),
  },
  {
    name: 'data without a method',
    body: body(dataPart({ params: ['/mnt/tank/r.txt'] }), filePart()),
    status: 422,
    text: '',
  },
  {
    name: 'data a JSON array',
    body: body(dataPart('["filesystem.put", ["/mnt/tank/r.txt"]]'), filePart()),
    status: 400,
    text: 'the "data" part must be a JSON object',
  },
  {
    name: 'data null',
    body: body(dataPart('null'), filePart()),
    status: 400,
    text: 'the "data" part must be a JSON object',
  },
  {
    name: 'data a string',
    body: body(dataPart('"filesystem.put"'), filePart()),
    status: 400,
    text: 'the "data" part must be a JSON object',
  },
  {
    name: 'method null',
    body: body(dataPart({ method: null, params: ['/mnt/tank/r.txt'] }), filePart()),
    status: 412,
    text: '[EBADMSG] Invalid method name',
  },
  {
    name: 'method a list',
    body: body(dataPart({ method: ['filesystem.put'], params: ['/mnt/tank/r.txt'] }), filePart()),
    status: 412,
    text: '[EBADMSG] Invalid method name',
  },
  {
    name: 'method with a NUL',
    body: body(dataPart({ method: 'filesystem.put\u0000', params: ['/mnt/tank/r.txt'] }), filePart()),
    status: 422,
    text: "[ENOMETHOD] Method 'put\u0000' not found in 'filesystem'",
  },
  {
    name: 'data nested 10 000 arrays deep',
    body: body(dataPart(`{"method":"filesystem.put","params":${nested(10_000)}}`), filePart()),
    status: 400,
    text: 'maximum recursion depth exceeded while decoding a JSON array from a unicode string',
  },
  {
    name: 'data nested 10 000 objects deep',
    body: body(dataPart(`{"method":"filesystem.put","params":[${nestedObject(10_000)}]}`), filePart()),
    status: 400,
    text: 'maximum recursion depth exceeded while decoding a JSON object from a unicode string',
  },
  {
    name: 'data larger than 64 KiB',
    body: body(putData(`/mnt/tank/${'a'.repeat(70_000)}`), filePart()),
    status: 400,
    text: 'the "data" part is larger than 65536 bytes',
  },
  {
    name: 'invalid UTF-8 in data, outside strings',
    body: body(
      dataPart(
        Buffer.concat([
          Buffer.from('{"method":"filesystem.put",'),
          Buffer.from([0xff]),
          Buffer.from('"params":["/mnt/tank/r.txt"]}'),
        ]),
      ),
      filePart(),
    ),
    status: 400,
    text: parserMessage('{"method":"filesystem.put",\ufffd"params":["/mnt/tank/r.txt"]}'),
  },
  {
    name: 'data with duplicate keys: the last one wins',
    body: body(
      dataPart(
        '{"method":"no.such","method":"filesystem.put","params":["/mnt/tank/elsewhere.txt"],"params":["/mnt/tank/dup-keys.txt"]}',
      ),
      filePart('dup'),
    ),
    status: 200,
    text: 'JOB',
    job: { state: 'SUCCESS' },
    lands: ['dup-keys.txt'],
  },
  {
    name: 'params an object (taken as the one param)',
    body: body(dataPart({ method: 'filesystem.put', params: { path: '/mnt/tank/r.txt' } }), filePart()),
    status: 200,
    text: 'JOB',
    job: { state: 'FAILED', error: '[EINVAL] path: Input should be a valid string\n' },
  },
  { name: 'a GET', method: 'GET', body: Buffer.alloc(0), status: 500, text: AIOHTTP_500 },
];

/** Hostile targets: the endpoint takes them (params are checked in the job), the job fails, nothing is written anywhere. */
const hostile: {
  name: string;
  params: unknown[];
  error: (canary: string) => string;
  escapes?: (canary: string) => string[];
}[] = [
  { name: 'a relative ../ path', params: ['../x'], error: () => '[EINVAL] ../x: path must be absolute' },
  {
    name: 'a relative path without ..',
    params: ['mnt/tank/x'],
    error: () => '[EINVAL] mnt/tank/x: path must be absolute',
  },
  {
    name: 'a Windows-style relative path',
    params: ['..\\..\\x'],
    error: () => '[EINVAL] ..\\..\\x: path must be absolute',
  },
  {
    name: '/mnt/tank/../../etc/…',
    params: [`/mnt/tank/../../etc/stor-rel-${UNIQUE}`],
    error: () => `[EINVAL] /mnt/tank/../../etc/stor-rel-${UNIQUE}: path must not contain '..'`,
    escapes: () => [`/etc/stor-rel-${UNIQUE}`, join(stateDir, `etc/stor-rel-${UNIQUE}`)],
  },
  {
    name: '.. that would come back into the pool',
    params: ['/mnt/tank/docs/../x'],
    error: () => "[EINVAL] /mnt/tank/docs/../x: path must not contain '..'",
  },
  {
    name: 'a NUL in the name',
    params: ['/mnt/tank/a\u0000b'],
    error: () => '[EINVAL] /mnt/tank/a\\u0000b: path contains a NUL byte',
  },
  {
    name: 'a 300-character name',
    params: [`/mnt/tank/${'n'.repeat(300)}`],
    error: () => `[ENAMETOOLONG] /mnt/tank/${'n'.repeat(54)}…: a name is longer than 255 bytes`,
  },
  {
    name: 'a path over 1024 characters',
    params: [`/mnt/tank/${'d/'.repeat(600)}x`],
    error: () => '[EINVAL] path: String should have at most 1024 characters\n',
  },
  {
    name: 'an absolute path outside the pool (the canary directory)',
    params: ['CANARY/x'],
    error: (c) => `[ENOENT] ${c}/x: only paths inside a pool are served (pools: /mnt/tank)`,
    escapes: (c) => [`${c}/x`],
  },
  {
    name: '/etc/passwd',
    params: ['/etc/passwd'],
    error: () => '[ENOENT] /etc/passwd: only paths inside a pool are served (pools: /mnt/tank)',
  },
  {
    name: 'a pool that does not exist',
    params: ['/mnt/other/x'],
    error: () => '[ENOENT] /mnt/other/x: only paths inside a pool are served (pools: /mnt/tank)',
  },
  {
    name: '/mnt itself',
    params: ['/mnt'],
    error: () => '[ENOENT] /mnt: only paths inside a pool are served (pools: /mnt/tank)',
  },
  // The appliance's open(path, 'wb+') of a directory: Python's IsADirectoryError (MW/plugins/filesystem.py:565).
  { name: 'the pool root', params: ['/mnt/tank/'], error: () => "[Errno 21] Is a directory: '/mnt/tank'" },
  {
    name: 'an existing directory',
    params: ['/mnt/tank/docs'],
    error: () => "[Errno 21] Is a directory: '/mnt/tank/docs'",
  },
  {
    name: 'through a symlink in the pool to a directory outside',
    params: ['/mnt/tank/to-canary/x'],
    error: () => '[EXDEV] /mnt/tank/to-canary/x: path passes through a symlink that leaves the pool',
    escapes: (c) => [`${c}/x`],
  },
  {
    name: 'new directories below a symlink that leaves the pool',
    params: ['/mnt/tank/to-canary/new/dir/x'],
    error: () => '[EXDEV] /mnt/tank/to-canary/new/dir/x: path passes through a symlink that leaves the pool',
    escapes: (c) => [`${c}/new`],
  },
  {
    name: 'a symlink in the pool to a file outside',
    params: ['/mnt/tank/to-canary-file.txt'],
    error: () => '[EXDEV] /mnt/tank/to-canary-file.txt: path passes through a symlink that leaves the pool',
  },
  {
    name: 'appending through a symlink to a file outside',
    params: ['/mnt/tank/to-canary-file.txt', { append: true }],
    error: () => '[EXDEV] /mnt/tank/to-canary-file.txt: path passes through a symlink that leaves the pool',
  },
  {
    name: 'a dangling symlink whose target is outside',
    params: ['/mnt/tank/dangling.txt'],
    error: () => '[EINVAL] /mnt/tank/dangling.txt: path passes through a dangling symlink',
    escapes: (c) => [`${c}/missing.txt`],
  },
  {
    name: 'a relative symlink ../.. in the pool',
    // A name no other process on the machine can have made, on either side of the link.
    params: [`/mnt/tank/up/stor-up-${UNIQUE}`],
    error: () => `[EXDEV] /mnt/tank/up/stor-up-${UNIQUE}: path passes through a symlink that leaves the pool`,
    escapes: () => [join(stateDir, `stor-up-${UNIQUE}`), join(stateDir, `../stor-up-${UNIQUE}`)],
  },
];

describe('POST /_upload/: malformed bodies', () => {
  for (const c of uploadCases) {
    it(`${c.status} for ${c.name}`, async () => {
      const before = await snapshot();
      const headers: Record<string, string> = { authorization: `Bearer ${adminKey}` };
      if (c.contentType !== null) headers['content-type'] = c.contentType ?? MULTIPART;
      const res = await http({ method: c.method ?? 'POST', path: '/_upload/', headers, body: c.body });
      expect(res.status).toBe(c.status);
      const jobs = await settledJobsSince(before.lastJob);
      if (c.text === 'JOB') expect(res.body).toBe(JSON.stringify({ job_id: jobs[0]?.id }));
      else expect(res.body).toBe(c.text);
      if (c.job) {
        expect(jobs).toHaveLength(1);
        expect(jobs[0]).toMatchObject({
          method: 'filesystem.put',
          state: c.job.state,
          ...(c.job.error !== undefined ? { error: c.job.error } : {}),
        });
      } else expect(jobs).toEqual([]);
      await expectUnharmed(before, { lands: c.lands ?? [] });
    });
  }
});

describe('POST /_upload/: hostile targets fail in the job and write nothing anywhere', () => {
  for (const h of hostile) {
    it(h.name, async () => {
      const before = await snapshot();
      const params = h.params.map((p) => (typeof p === 'string' ? p.replace(/^CANARY/, canary) : p));
      const res = await http({
        path: '/_upload/',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': MULTIPART },
        body: body(putData(...params), filePart('HOSTILE')),
      });
      expect(res.status).toBe(200);
      const jobs = await settledJobsSince(before.lastJob);
      expect(res.body).toBe(JSON.stringify({ job_id: jobs[0]?.id }));
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({
        method: 'filesystem.put',
        arguments: params,
        state: 'FAILED',
        error: h.error(canary),
      });
      await expectUnharmed(before, { escapes: h.escapes?.(canary) ?? [] });
    });
  }

  it('covers at least 40 inputs in all', () => {
    expect(wsCases.length + httpCases.length + uploadCases.length + hostile.length).toBeGreaterThanOrEqual(40);
  });
});
