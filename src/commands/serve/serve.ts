import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Appliance } from '../../core/appliance/appliance.js';
import { EMULATIONS, emulationOf, type ApplianceSettings, type EmulationName } from '../../core/appliance/settings.js';
import { sweepStrayUploads } from '../../core/appliance/stray-uploads.js';
import { StorError } from '../../core/errors.js';
import { isLoopbackHost } from '../../core/net/loopback.js';
import { startServer } from '../../core/server/server.js';
import { ADMIN_KEY_FILE } from '../../core/store/seed.js';
import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';

export interface ServeOptions {
  host: string;
  port: number;
  state?: string;
  roleExpansion?: ApplianceSettings['roleExpansion'];
  roleLists?: ApplianceSettings['roleLists'];
  uploadGate?: ApplianceSettings['uploadGate'];
  sysAdmin?: ApplianceSettings['sysAdmin'];
  httpRpc?: ApplianceSettings['httpRpc'];
  /** A preset of every setting; the individual flags override it. */
  emulate?: EmulationName;
  tlsCert?: string;
  tlsKey?: string;
  /** Seconds after which a WebSocket the server has sent nothing on is dropped; a server option, not stored. */
  wsIdleTimeout?: number;
}

/** What `stor serve --json` prints once listening (one line), and returns when stopped. */
export interface ServeResult {
  url: string;
  rpc_url: string;
  state_dir: string;
  admin_key_file: string;
  settings: ApplianceSettings;
  /** `--ws-idle-timeout` in seconds; null when WebSockets are never dropped for idleness. */
  ws_idle_timeout: number | null;
}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new StorError('usage', 'TLS_FILE_UNREADABLE', `cannot read the TLS ${what} ${path}: ${(err as Error).message}`);
  }
}

/** `stor serve`: the emulated appliance on the network until SIGINT/SIGTERM. */
export async function serve(ctx: CommandContext, options: ServeOptions): Promise<CommandResult<ServeResult>> {
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) {
    throw new StorError('usage', 'TLS_HALF_CONFIGURED', '--tls-cert and --tls-key go together');
  }
  if (!ctx.io.onSignal) throw new StorError('usage', 'NO_SIGNALS', 'stor serve runs until SIGINT or SIGTERM, and this process cannot receive them');
  const local = (path: string) => resolve(ctx.io.cwd, path);
  const tls = options.tlsCert && options.tlsKey ? { cert: readPem(local(options.tlsCert), 'certificate'), key: readPem(local(options.tlsKey), 'key') } : undefined;
  const stateDir = options.state !== undefined ? local(options.state) : ctx.stateDir;
  const chosen = { roleExpansion: options.roleExpansion, roleLists: options.roleLists, uploadGate: options.uploadGate, sysAdmin: options.sysAdmin, httpRpc: options.httpRpc };
  const settings: Partial<ApplianceSettings> = {
    ...(options.emulate ? EMULATIONS[options.emulate] : {}),
    ...Object.fromEntries(Object.entries(chosen).filter(([, v]) => v !== undefined)),
  };
  const appliance = Appliance.open({ stateDir, settings });
  // Uploads cut short by a killed server left their temporary files; nothing else refers to them.
  const swept = sweepStrayUploads(appliance.store.mntDir);
  if (swept.length > 0) ctx.note(`stor serve: removed ${swept.length} temporary file(s) of interrupted uploads`);
  const log = (line: string) => {
    if (ctx.globals.verbose) ctx.io.stderr.write(`stor serve: ${line}\n`);
  };
  let server;
  try {
    server = await startServer({
      appliance,
      host: options.host,
      port: options.port,
      ...(tls ? { tls } : {}),
      ...(options.wsIdleTimeout !== undefined ? { wsIdleTimeoutSeconds: options.wsIdleTimeout } : {}),
      log,
    });
  } catch (err) {
    appliance.close();
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
      throw new StorError('failed', 'LISTEN_FAILED', `cannot listen on ${options.host}:${options.port}: ${e.code}`);
    }
    throw err;
  }
  const data: ServeResult = {
    url: server.url,
    rpc_url: server.rpcUrl,
    state_dir: stateDir,
    admin_key_file: join(stateDir, ADMIN_KEY_FILE),
    settings: appliance.settings,
    ws_idle_timeout: options.wsIdleTimeout ?? null,
  };
  if (ctx.globals.json) ctx.io.stdout.write(`${JSON.stringify(data)}\n`);
  else ctx.io.stdout.write(`listening on ${server.rpcUrl} (HTTP ${server.url})\n`);
  ctx.note(`stor serve: state in ${stateDir}; the administrator key is in ${data.admin_key_file}`);
  ctx.note(
    `stor serve: emulating ${emulationOf(appliance.settings)}: role expansion ${appliance.settings.roleExpansion}, role lists ${appliance.settings.roleLists}, ` +
      `upload gate ${appliance.settings.uploadGate}, SYS_ADMIN ${appliance.settings.sysAdmin}, POST /api/current ${appliance.settings.httpRpc}`,
  );
  if (options.wsIdleTimeout !== undefined) {
    ctx.note(`stor serve: WebSockets on which the server sends nothing for ${options.wsIdleTimeout} s are dropped (code 1006), as behind the appliance's proxy`);
  }
  if (!tls && !isLoopbackHost(options.host)) {
    ctx.note('stor serve: warning: no TLS on a network address; like a real appliance, this server revokes API keys sent to it in clear');
  }

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const off = ctx.io.onSignal?.((s) => {
      off?.();
      resolve(s);
    });
  });
  ctx.note(`stor serve: ${signal}: finishing calls in flight, then stopping`);
  await server.close();
  appliance.close();
  ctx.note('stor serve: stopped');
  return { data, view: { kind: 'json' }, streamed: true };
}
