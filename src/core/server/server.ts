import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { X509Certificate } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { WebSocketServer } from 'ws';
import type { Appliance } from '../appliance/appliance.js';
import type { Release } from '../releases/index.js';
import type { Origin } from '../appliance/session/session.js';
import { isLoopbackHost } from '../net/loopback.js';
import { tlsServerEndPoint } from '../net/scram.js';
import { Dispatcher } from '../rpc/dispatcher.js';
import { handleHttpRpc, sendText } from './http-rpc.js';
import { DEFAULT_LIMITS, type ServerLimits } from './limits.js';
import { RateLimiter } from '../appliance/session/rate-limit.js';
import { uploadRoute } from './upload.js';
import { armBodyDeadline } from './body-deadline.js';
import { downloadRoute } from './download.js';
import { zfsReceiveRoute } from './zfs-receive.js';
import { CLOSE, serveConnection, type Connection } from './websocket.js';
import { SnapshotTaskScheduler } from '../appliance/snapshot-tasks/scheduler.js';
import { everyUtcMinute, type MinuteTimer } from './minute-timer.js';

export type { MinuteTimer } from './minute-timer.js';

/**
 * The WebSocket paths a release serves: `/api/current` and `/api/<v>` for every API version it has,
 * v24.10 included though `/api/versions` leaves it out (MW/main.py:200-215, :277-278, :1300-1304).
 * Every path serves the release's current methods: stor keeps no older API's models (docs/RELEASES.md
 * "Supported releases"). Any other `/api/…` path is 404.
 */
function rpcPaths(release: Release): Set<string> {
  return new Set(['/api/current', ...[...release.apiVersions, ...release.unlistedApiVersions].map((v) => `/api/${v}`)]);
}
/** The largest frame accepted at all (MW/utils/limits.py:20, 70-71); ws closes with 1009 beyond it. */
const MAX_FRAME = 2 * 1024 * 1024;

export interface ServerOptions {
  appliance: Appliance;
  host: string;
  /** 0 picks a free port. */
  port: number;
  tls?: { cert: Buffer; key: Buffer };
  /** Operator log lines (never keys). */
  log?: (line: string) => void;
  /** Extra routes, e.g. the upload endpoint; return true when handled. */
  routes?: ((req: IncomingMessage, res: ServerResponse, origin: Origin) => boolean | Promise<boolean>)[];
  /** Drop a WebSocket on which the server has sent nothing for this many seconds, as the appliance's proxy does; off when absent. */
  wsIdleTimeoutSeconds?: number;
  /** Lower limits for tests; `stor serve` uses the defaults. */
  limits?: Partial<ServerLimits>;
  /** What ticks the periodic snapshot tasks; `stor serve` uses a timer at each UTC minute, a test fires its own. */
  minuteTimer?: MinuteTimer;
}

export interface RunningServer {
  /** `http(s)://host:port` */
  url: string;
  /** `ws(s)://host:port/api/current` */
  rpcUrl: string;
  port: number;
  /** Stops accepting, lets calls, requests and jobs in flight finish (up to `graceMs`), closes every connection. */
  close(graceMs?: number): Promise<void>;
}

function originOf(
  socket: Socket,
  secure: boolean,
  transport: Origin['transport'],
  tlsEndPoint: Buffer | null = null,
): Origin {
  const address = socket.remoteAddress ?? 'unknown';
  return {
    transport,
    address,
    secure: secure || isLoopbackHost(address),
    ...(socket.remotePort !== undefined ? { port: socket.remotePort } : {}),
    ...(tlsEndPoint ? { tlsEndPoint } : {}),
  };
}

/**
 * The RFC 5929 tls-server-end-point binding of the certificate this server presents, which a
 * channel-bound SCRAM login must carry: 26 publishes the UI certificate's for pam_truenas
 * (MW/etc_files/pam_keyring.py:55-63 at stable/26). Null without TLS, or for a certificate whose
 * binding is undefined (EdDSA): then a bound login cannot match, as on 26.
 */
function serverEndPoint(tls: ServerOptions['tls']): Buffer | null {
  if (!tls) return null;
  try {
    return tlsServerEndPoint(new X509Certificate(tls.cert).raw);
  } catch {
    return null;
  }
}

/**
 * Answers a socket that gets no HTTP server (a refused upgrade, garbage) and destroys it once the
 * answer is written: ending it alone would leave it half-open for as long as the peer likes.
 */
function refuseSocket(socket: Socket, status: string, body = '', headers: string[] = []): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const head = [
    `HTTP/1.1 ${status}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...headers,
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  // A peer that does not read the answer must not hold the socket either.
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** The emulated appliance on the network: JSON-RPC over WebSocket and HTTP, and the upload and download endpoints. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { appliance } = options;
  const log = options.log ?? (() => undefined);
  const dispatcher = new Dispatcher(appliance);
  const limiter = new RateLimiter();
  const deps = { appliance, dispatcher, limiter, log };
  const secure = options.tls !== undefined;
  const endPoint = serverEndPoint(options.tls);
  const connections = new Set<Connection>();
  const limits: ServerLimits = { ...DEFAULT_LIMITS, ...options.limits };
  // Periodic snapshot tasks run while the server does (appliance/snapshot-tasks/scheduler.ts): a
  // tick at each minute, at the appliance's clock; a failed tick is logged and the next one runs.
  const snapshotTasks = new SnapshotTaskScheduler(appliance);
  /** WebSockets not logged in, by peer address. */
  const anonymous = new Map<string, number>();
  const countAnonymous = (address: string, delta: number) => {
    const n = (anonymous.get(address) ?? 0) + delta;
    if (n > 0) anonymous.set(address, n);
    else anonymous.delete(address);
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME });
  const routes = [
    uploadRoute(appliance, limiter, limits.uploadIdleMs, log),
    downloadRoute(appliance, limits.downloadIdleMs),
    zfsReceiveRoute(appliance, limits.uploadIdleMs, log),
    ...(options.routes ?? []),
  ];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const origin = originOf(req.socket, secure, 'http');
    for (const route of routes) {
      if (await route(req, res, origin)) return;
    }
    // No login (MW/main.py:1432-1433): the release's versions, as json.dumps writes a list.
    if (path === '/api/versions' && req.method === 'GET')
      return sendText(
        res,
        200,
        JSON.stringify(appliance.release.apiVersions).replaceAll('","', '", "'),
        'application/json',
      );
    if (rpcPaths(appliance.release).has(path)) {
      // 25.10.1 registers these routes for GET only (MW/main.py:277-278): no JSON-RPC over POST.
      const postServed = appliance.settings.httpRpc === 'served';
      if (req.method === 'POST' && postServed) return handleHttpRpc(req, res, origin, deps);
      if (req.method === 'GET')
        return sendText(res, 400, 'No WebSocket UPGRADE hdr: None\n Can "Upgrade" only to "WebSocket".');
      req.resume();
      res.setHeader('allow', postServed ? 'GET, POST' : 'GET');
      return sendText(res, 405, '405: Method Not Allowed');
    }
    sendText(res, 404, '404: Not Found');
  };

  // HTTP requests still being answered (an upload streams long after its handler returned).
  const pending = new Set<ServerResponse>();
  let allAnswered: (() => void) | null = null;
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    pending.add(res);
    armBodyDeadline(req, res, limits.anonymousBodyMs);
    res.on('close', () => {
      pending.delete(res);
      if (pending.size === 0) allAnswered?.();
    });
    handle(req, res).catch((err: unknown) => {
      log(`internal error: ${err instanceof Error ? err.stack : String(err)}`);
      if (!res.headersSent) sendText(res, 500, '500: Internal Server Error');
      else res.destroy();
    });
  };

  // Node checks the headers timeout this often; its default (30 s) would more than double ours.
  const checking = { connectionsCheckingInterval: Math.min(30_000, Math.max(50, limits.headersTimeoutMs / 2)) };
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key, ...checking }, onRequest)
    : createHttpServer(checking, onRequest);
  // No limit on a request's total time (an upload takes as long as its bytes keep flowing; the
  // upload route cuts one that stalls); only the headers must come soon.
  server.requestTimeout = 0;
  server.headersTimeout = limits.headersTimeoutMs;

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (!rpcPaths(appliance.release).has(path)) return refuseSocket(socket, '404 Not Found');
    const address = socket.remoteAddress ?? 'unknown';
    // Every WebSocket counts in the total; only ones not logged in count per address, so idle
    // anonymous sockets from one address cannot take the places of logged-in connections.
    if (connections.size >= limits.maxConnections) {
      return refuseSocket(
        socket,
        '503 Service Unavailable',
        `Too many connections (at most ${limits.maxConnections}); try again later\n`,
        ['Retry-After: 30'],
      );
    }
    if ((anonymous.get(address) ?? 0) >= limits.maxAnonymousPerAddress) {
      const body = `Too many connections from ${address} that have not logged in (at most ${limits.maxAnonymousPerAddress}); try again later\n`;
      return refuseSocket(socket, '503 Service Unavailable', body, ['Retry-After: 30']);
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      countAnonymous(address, 1);
      const connection = serveConnection(ws, originOf(socket, secure, 'websocket', endPoint), {
        ...deps,
        limits,
        onAuthChange: (authenticated) => countAnonymous(address, authenticated ? -1 : 1),
        ...(options.wsIdleTimeoutSeconds !== undefined ? { idleTimeoutSeconds: options.wsIdleTimeoutSeconds } : {}),
      });
      connections.add(connection);
      ws.on('close', () => {
        connections.delete(connection);
        if (!connection.authenticated) countAnonymous(address, -1);
      });
    });
  });
  // Garbage on a socket must not take the server down.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket | TLSSocket) =>
    refuseSocket(socket, err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request'),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // After start-up, a failure to accept (EMFILE, …) is logged; without a listener it would end the process.
  server.on('error', (err) => log(`server error: ${err.message}`));
  const { port } = server.address() as AddressInfo;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `${secure ? 'https' : 'http'}://${hostPart}:${port}`;
  // Started once listening: a server that failed to start ticks nothing.
  const minuteTimer = (options.minuteTimer ?? everyUtcMinute)(() =>
    snapshotTasks.tick(appliance.now()).catch((err: unknown) => {
      log(`periodic snapshot tasks: ${err instanceof Error ? err.message : String(err)}`);
    }),
  );

  return {
    url,
    rpcUrl: `${secure ? 'wss' : 'ws'}://${hostPart}:${port}/api/current`,
    port,
    close: async (graceMs = 5000) => {
      minuteTimer.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A download nobody has started fetching is not worth waiting for: its job ends now.
      await appliance.downloads.closeAll();
      const answered = pending.size === 0 ? Promise.resolve() : new Promise<void>((r) => (allAnswered = r));
      const drained = Promise.all([
        answered,
        ...[...connections].map((c) => c.drain()),
        appliance.jobs.idle(),
        snapshotTasks.idle(),
      ]);
      await Promise.race([drained, new Promise((r) => setTimeout(r, graceMs).unref())]);
      for (const c of connections) c.close(CLOSE.GOING_AWAY, 'Server shutting down');
      for (const client of wss.clients) client.terminate();
      server.closeAllConnections();
      await closed;
    },
  };
}
