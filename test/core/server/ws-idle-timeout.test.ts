import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectWs, loggedInWs, startTestServer, type WsClient } from '../../helpers/server.js';

/*
 * The appliance's nginx closes a WebSocket on which the server has sent nothing for 60 s (its /api
 * location sets no proxy_read_timeout; MW/etc_files/local/nginx/nginx.conf.mako:242-255).
 * `--ws-idle-timeout` makes the emulator do the same, so clients can be tested against it. 1 s here keeps the test short.
 */
/**
 * `work` on `client`, pinging every 100 ms until it is done: the timeout runs from the server's last
 * frame, and on a loaded machine an answer (a login, a ping's) could come later than the 1 s
 * timeout after the frame before it. With the server in this process, the client's reply to a
 * frame can even reach it only after the server judged the socket idle. The automatic pongs count
 * as sent (the second test shows it); the pings stop once `work` is done.
 */
async function pinging<T>(client: WsClient, work: (client: WsClient) => Promise<T>): Promise<T> {
  client.ws.ping();
  const pings = setInterval(() => client.ws.ping(), 100);
  try {
    return await work(client);
  } finally {
    clearInterval(pings);
  }
}

/** Logged in, pinging until the login is answered (pinging). */
async function loggedInPinging(rpcUrl: string, key: string): Promise<WsClient> {
  const client = await connectWs(rpcUrl);
  expect(await pinging(client, (c) => c.result('auth.login_with_api_key', [key]))).toBe(true);
  return client;
}

describe('a server with an idle timeout for WebSockets (stor serve --ws-idle-timeout)', () => {
  it('drops a logged-in client that sends nothing, without a close frame: the client sees 1006', async () => {
    const server = await startTestServer(undefined, { wsIdleTimeoutSeconds: 1 });
    const client = await loggedInPinging(server.rpcUrl, server.adminKey);
    expect(await client.closed).toEqual({ code: 1006, reason: '' });
    // Only that socket went: the server still serves.
    const next = await loggedInPinging(server.rpcUrl, server.adminKey);
    expect(await pinging(next, (c) => c.result('core.ping'))).toBe('pong');
  });

  it('keeps a socket open while the client pings (the automatic pong counts as sent), and drops it once the pings stop', async () => {
    const server = await startTestServer(undefined, { wsIdleTimeoutSeconds: 1 });
    const client = await loggedInPinging(server.rpcUrl, server.adminKey);
    let pongs = 0;
    client.ws.on('pong', () => pongs++);
    // Three idle timeouts' worth of silence but for the pings.
    for (let i = 0; i < 15; i++) {
      client.ws.ping();
      await sleep(200);
    }
    expect(pongs).toBeGreaterThan(0);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    expect(await pinging(client, (c) => c.result('core.ping'))).toBe('pong');
    expect(await client.closed).toEqual({ code: 1006, reason: '' });
  });

  it('drops an anonymous socket too, and leaves sockets alone when no timeout is set', async () => {
    const timed = await startTestServer(undefined, { wsIdleTimeoutSeconds: 1 });
    const anonymous = await connectWs(timed.rpcUrl);
    expect(await anonymous.closed).toEqual({ code: 1006, reason: '' });

    const plain = await startTestServer();
    const quiet = await loggedInWs(plain.rpcUrl, plain.adminKey);
    await sleep(1500);
    expect(quiet.ws.readyState).toBe(WebSocket.OPEN);
    expect(await quiet.result('core.ping')).toBe('pong');
  });
});
