/**
 * What `stor serve --emulate truenas-25.10.1` answers to frames and requests a client gets wrong,
 * in 25.10.1's words: raw WebSocket frames and raw HTTP against a real server on port 0. Python's
 * json texts were taken from CPython 3.11 (25.10.1's interpreter) for exactly these inputs.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { connectWs, loggedInWs, SAFETY_MS } from '../../helpers/server.js';
import { server25 } from '../../conformance/harness.js';

/** aiohttp's answer to an exception a handler lets through (web_protocol.py `handle_error`). */
const AIOHTTP_500 = '500 Internal Server Error\n\nServer got itself in trouble';

function post(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/_upload/`, { method, headers, timeout: SAFETY_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const BOUNDARY = 'envelope-boundary';
const multipart = (data: unknown) =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${JSON.stringify(data)}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\nbytes\r\n--${BOUNDARY}--\r\n`,
  );
const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

describe('the JSON-RPC envelope as 25.10.1 (MW/api/base/server/ws_handler/rpc.py, MW/utils/limits.py)', () => {
  it('-32700 says what Python 3.11 json says: empty, whitespace, not JSON, truncated, trailing data, a BOM (rpc.py:249-251)', async () => {
    const server = await server25();
    const ws = await connectWs(server.rpcUrl);
    const cases: [string, string][] = [
      ['', 'Expecting value: line 1 column 1 (char 0)'],
      ['  \n ', 'Expecting value: line 2 column 2 (char 4)'],
      ['hello', 'Expecting value: line 1 column 1 (char 0)'],
      ['{', 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
      ['{"jsonrpc": "2.0", "id": 1, "method": "core.pi', 'Unterminated string starting at: line 1 column 39 (char 38)'],
      ['{"jsonrpc": "2.0", "id": 1', "Expecting ',' delimiter: line 1 column 27 (char 26)"],
      ['{"jsonrpc": "2.0", "id": 1,}', 'Expecting property name enclosed in double quotes: line 1 column 28 (char 27)'],
      ['{"jsonrpc": "2.0"} {}', 'Extra data: line 1 column 20 (char 19)'],
      ['\ufeff{}', 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
    ];
    for (const [text, message] of cases) {
      ws.send(text);
      expect(await ws.next(), JSON.stringify(text)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message },
      });
    }
  });

  it('an invalid id is echoed as sent with -32600 (rpc.py:285-291, 306-311)', async () => {
    const server = await server25();
    const ws = await connectWs(server.rpcUrl);
    for (const id of [[1], { a: 1 }, 1.5]) {
      ws.send({ jsonrpc: '2.0', id, method: 'core.ping' });
      expect(await ws.next()).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32600, message: "'id' member must be of type null, string or number" },
      });
    }
    ws.send({ id: [2], method: 'core.ping' });
    expect(await ws.next()).toEqual({
      jsonrpc: '2.0',
      id: [2],
      error: { code: -32600, message: "Missing 'jsonrpc' member" },
    });
  });

  it('a binary frame closes 1003 with the repr of the message type (rpc.py:224-229)', async () => {
    const server = await server25();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    ws.ws.send(Buffer.from('{}'), { binary: true });
    expect(await ws.closed).toEqual({ code: 1003, reason: 'Invalid websocket message type: <WSMsgType.BINARY: 2>' });
  });
});

describe('/_upload/ edges as 25.10.1 (MW/apps/file_app.py:118-247, MW/restful.py:78-126)', () => {
  it('no multipart body (a GET, JSON): aiohttp 500 from request.multipart() (file_app.py:119-121; route "*", MW/main.py:1439)', async () => {
    const server = await server25();
    expect(await post(server.url, 'GET', {}, '')).toEqual({ status: 500, body: AIOHTTP_500 });
    expect(await post(server.url, 'POST', { 'content-type': 'application/json' }, '{}')).toEqual({
      status: 500,
      body: AIOHTTP_500,
    });
  });

  it('a key whose id is a number but no key: get_instance raises outside the handlers, 500; a non-number id: 401 (MW/plugins/api_key.py:364-377)', async () => {
    const server = await server25();
    const data = multipart({ method: 'filesystem.put', params: ['/mnt/tank/e.txt'] });
    expect(
      await post(server.url, 'POST', { ...MULTIPART, authorization: `Bearer 999-${'a'.repeat(64)}` }, data),
    ).toEqual({ status: 500, body: AIOHTTP_500 });
    expect(await post(server.url, 'POST', { ...MULTIPART, authorization: 'Bearer x-y' }, data)).toEqual({
      status: 401,
      body: 'Invalid API key',
    });
  });

  it('a method that is no job: invalid params 412 with the ValidationErrors text; valid ones, 500 (file_app.py:230-247)', async () => {
    const server = await server25();
    const auth = { ...MULTIPART, authorization: `Bearer ${server.adminKey}` };
    expect(await post(server.url, 'POST', auth, multipart({ method: 'core.ping', params: [] }))).toEqual({
      status: 500,
      body: AIOHTTP_500,
    });
    const invalid = await post(server.url, 'POST', auth, multipart({ method: 'user.get_instance', params: ['x'] }));
    expect(invalid.status).toBe(412);
    expect(invalid.body).toMatch(/^\[EINVAL\] id: Input should be a valid integer/);
  });
});
