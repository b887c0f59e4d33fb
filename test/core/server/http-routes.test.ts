/**
 * The HTTP routes of `stor serve --emulate truenas-25.10.1`, with raw HTTP requests: the JSON-RPC
 * routes are GET-only WebSocket routes (MW/main.py:277-278), so anything else gets aiohttp's
 * answers (MW/api/base/server/ws_handler/base.py:16-19).
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { SAFETY_MS, startTestServer } from '../../helpers/server.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP/1.1 request as written, no client library in between. */
function raw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers, timeout: SAFETY_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'core.ping', params: [] });

describe('HTTP routes as 25.10.1', () => {
  it('POST /api/current and /api/v25.10.1: 405 "405: Method Not Allowed" with Allow: GET, with or without a key (MW/main.py:277-278)', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    for (const path of ['/api/current', '/api/v25.10.1']) {
      const anonymous: Record<string, string> = { 'content-type': 'application/json' };
      for (const headers of [anonymous, { ...anonymous, authorization: `Bearer ${server.adminKey}` }]) {
        const res = await raw(server.url, 'POST', path, headers, ping);
        expect(res.status).toBe(405);
        expect(res.body).toBe('405: Method Not Allowed');
        expect(res.headers.allow).toBe('GET');
      }
    }
    for (const method of ['PUT', 'DELETE', 'HEAD']) {
      const res = await raw(server.url, method, '/api/current');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET');
    }
  });

  it("a plain GET without an upgrade: 400 with aiohttp's text (MW/api/base/server/ws_handler/base.py:17-19)", async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    for (const path of ['/api/current', '/api/v25.10.1']) {
      const res = await raw(server.url, 'GET', path);
      expect(res.status).toBe(400);
      expect(res.body).toBe('No WebSocket UPGRADE hdr: None\n Can "Upgrade" only to "WebSocket".');
    }
  });

  it('GET /api/versions: 200 application/json, a list of version strings ending with the current one, no login (MW/main.py:1300-1304)', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const res = await raw(server.url, 'GET', '/api/versions');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const versions = JSON.parse(res.body) as unknown[];
    expect(versions.every((v) => typeof v === 'string' && /^v\d/.test(v))).toBe(true);
    expect(versions.at(-1)).toBe('v25.10.1');
    expect(versions).not.toContain('v24.10');
    // Every version listed is a route a client can open (the emulator serves the current API only).
    for (const version of versions) {
      const ws = new WebSocket(`${server.rpcUrl.replace(/\/api\/current$/, '')}/api/${version as string}`);
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      ws.close();
    }
  });
});
