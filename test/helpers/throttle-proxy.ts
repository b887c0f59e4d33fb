import { connect, createServer, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';

export interface ThrottleProxy {
  /** `ws://127.0.0.1:PORT`, to give the CLI as --url / STOR_URL. */
  baseUrl: string;
  /** How many connections opened a WebSocket (`GET /api/current`) through the proxy so far. */
  webSockets(): number;
  /** The scheme of each upload's Authorization header (`Bearer`, `Token`, …), in order; never the credential. */
  uploadSchemes(): string[];
}

const TICK_MS = 50;
/** Bytes held for the upstream before the client is paused. */
const QUEUE_LIMIT = 64 * 1024;

/** Forwards `from` to `to` at no more than `rate` bytes a second; small frames pass at once. */
function throttled(from: Socket, to: Socket, rate: number): void {
  const perTick = Math.max(1, Math.floor((rate * TICK_MS) / 1000));
  const queue: Buffer[] = [];
  let queued = 0;
  let budget = perTick;
  let ended = false;
  const flush = () => {
    while (queue.length > 0 && budget > 0) {
      const head = queue[0]!;
      const n = Math.min(head.length, budget);
      to.write(head.subarray(0, n));
      budget -= n;
      queued -= n;
      if (n === head.length) queue.shift();
      else queue[0] = head.subarray(n);
    }
    if (queued < QUEUE_LIMIT && from.isPaused()) from.resume();
    if (ended && queued === 0) to.end();
  };
  const timer = setInterval(() => {
    budget = perTick;
    flush();
  }, TICK_MS);
  from.on('data', (chunk: Buffer) => {
    queue.push(chunk);
    queued += chunk.length;
    if (queued >= QUEUE_LIMIT) from.pause();
    flush();
  });
  from.on('end', () => {
    ended = true;
    flush();
  });
  from.on('close', () => clearInterval(timer));
  to.on('close', () => clearInterval(timer));
}

/**
 * A TCP proxy on 127.0.0.1 (free port) to `port`, as slow as a poor link in the direction of the
 * server: what the client sends goes at `bytesPerSecond`, answers come back at once. Every
 * connection goes through it (the WebSocket, JSON-RPC over HTTP and the upload alike). Closed
 * when the test ends.
 */
export async function startThrottleProxy(port: number, bytesPerSecond: number): Promise<ThrottleProxy> {
  let webSockets = 0;
  const uploadSchemes: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.once('data', (first: Buffer) => {
      if (first.toString('latin1').startsWith('GET /api/current')) webSockets++;
    });
    // HTTP keep-alive sends later uploads on the same connection: look at every request head.
    client.on('data', (chunk: Buffer) => {
      for (const head of chunk.toString('latin1').matchAll(/^POST \/_upload\/ HTTP[^]*?\r\n\r\n/gm)) {
        uploadSchemes.push(/^authorization: *(\S+)/im.exec(head[0])?.[1] ?? 'none');
      }
    });
    // A connection dropped on one side is dropped on the other, as a proxy does.
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    throttled(client, upstream, bytesPerSecond);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address() as { port: number };
  return {
    baseUrl: `ws://127.0.0.1:${address.port}`,
    webSockets: () => webSockets,
    uploadSchemes: () => [...uploadSchemes],
  };
}
