import { InvalidArgumentError } from 'commander';
import { createServer as createNetServer } from 'node:net';
import { join, resolve } from 'node:path';
import { Appliance } from '../../core/appliance/appliance.js';
import {
  EMULATIONS,
  emulationOf,
  SETTING_CHOICES,
  type ApplianceSettings,
  type EmulationName,
} from '../../core/appliance/settings.js';
import { sweepStrayUploads } from '../../core/appliance/jobs/stray-uploads.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import { readSmallFile, TLS_FILE } from '../../core/config/small-file.js';
import { isLoopbackHost } from '../../core/net/loopback.js';
import { startServer } from '../../core/server/server.js';
import { ADMIN_KEY_FILE } from '../../core/store/seed.js';
import type { CommandContext } from '../framework/context.js';
import type { CommandResult } from '../output/render.js';
import { portNumber, seconds } from '../framework/arg-parsers.js';
import { choice, defineCommand, value, type OptionValues } from '../framework/declare.js';

const ROLE_EXPANSIONS = SETTING_CHOICES.roleExpansion;

/** `--role-expansion`; `release-25.10.1`, its name before the reports' model got its own, still means `as-reported`. */
function roleExpansion(raw: string): ApplianceSettings['roleExpansion'] {
  const name = raw === 'release-25.10.1' ? 'as-reported' : raw;
  const known = ROLE_EXPANSIONS.find((r) => r === name);
  if (!known) throw new InvalidArgumentError(`choose one of ${ROLE_EXPANSIONS.join(', ')}`);
  return known;
}

const options = {
  host: value('<address>', 'address to listen on', { default: '127.0.0.1' }),
  port: value('<port>', 'port to listen on; 0 picks a free one', { parse: portNumber, default: 6000 }),
  state: value('<dir>', 'state directory (default: the embedded one, $STOR_HOME)', { complete: 'directory' }),
  roleExpansion: value(
    '<mode>',
    'terminating (never breaks login), as-reported (overlaps break login, as the seed reports say) or truenas-25.10.1 (self-including roles break login, as the real code does)',
    {
      parse: roleExpansion,
    },
  ),
  roleLists: choice(SETTING_CHOICES.roleLists, '<mode>', 'accept (as 25.10.1), or reject-overlap at save time'),
  emulate: choice(
    Object.keys(EMULATIONS) as EmulationName[],
    '<behaviour>',
    "every setting at once: truenas-25.10.1, truenas-25.10.6, truenas-25.10.7 or truenas-26.0 (each release as its source behaves), or as-reported (as the seed's reports describe 25.10.1)",
  ),
  release: choice(
    SETTING_CHOICES.release,
    '<release>',
    'the release to answer as: its system.version, /api/versions, role catalogue and contract (default 25.10.1)',
  ),
  uploadGate: choice(
    SETTING_CHOICES.uploadGate,
    '<mode>',
    "sys-admin (the reported gate), full-admin (25.10.1: filesystem.put's role), or role (FILESYSTEM_DATA_WRITE suffices)",
  ),
  sysAdmin: choice(
    SETTING_CHOICES.sysAdmin,
    '<who>',
    'who gets SYS_ADMIN: builtin-administrators (the seed), or admin-uids (25.10.1: uid 0 and 950)',
  ),
  httpRpc: choice(
    SETTING_CHOICES.httpRpc,
    '<mode>',
    "POST /api/current: served (the seed's form), or refused with 405 (25.10.1)",
  ),
  keyLogin: choice(
    SETTING_CHOICES.keyLogin,
    '<mode>',
    'how API keys log in: plain (25.10.x: the key is sent), or scram (TrueNAS 26: SCRAM-SHA-512, channel-bound over TLS)',
  ),
  wsIdleTimeout: value(
    '<seconds>',
    "drop a WebSocket on which the server sent nothing for this long, as the appliance's proxy does after 60 s (default: never)",
    {
      parse: seconds('--ws-idle-timeout'),
    },
  ),
  tlsCert: value('<file>', 'serve https/wss with this PEM certificate', { complete: 'file' }),
  tlsKey: value('<file>', 'the PEM private key for --tls-cert', { complete: 'file' }),
};

export type ServeOptions = OptionValues<typeof options>;

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
    return readSmallFile(path, TLS_FILE).data;
  } catch (err) {
    if (err instanceof StorError) throw err;
    throw new StorError(E.TLS_FILE_UNREADABLE, `cannot read the TLS ${what} ${path}: ${(err as Error).message}`);
  }
}

/** Binds `host:port` and lets it go: whether `stor serve` will be able to listen there. */
function tryListen(host: string, port: number): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolvePromise()));
  });
}

/** Runs `listen`, turning a refusal to listen into LISTEN_FAILED with what to do about it. */
async function listenOrExplain<T>(host: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
      const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
      const why = {
        EADDRINUSE: {
          text: `port ${port} is in use on ${host}`,
          hint: '`--port 0` picks a free port (stor serve prints it), or name another with `--port N`, or stop what holds this one',
        },
        EACCES: {
          text: `not permitted to listen on port ${port}`,
          hint: 'ports below 1024 need privileges: use `--port 0` (a free port) or a port above 1023',
        },
        EADDRNOTAVAIL: {
          text: `${host} is not an address of this machine`,
          hint: '`--host 127.0.0.1` (this machine only) or `--host 0.0.0.0` (every interface)',
        },
      }[e.code];
      throw new StorError(E.LISTEN_FAILED, `cannot listen on ${address}: ${why.text} (${e.code})`, { hint: why.hint });
    }
    throw err;
  }
}

/** `stor serve`: the emulated appliance on the network until SIGINT/SIGTERM. */
export async function serve(ctx: CommandContext, options: ServeOptions): Promise<CommandResult<ServeResult>> {
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) {
    throw new StorError(E.TLS_HALF_CONFIGURED, '--tls-cert and --tls-key go together');
  }
  if (!ctx.io.onSignal)
    throw new StorError(E.NO_SIGNALS, 'stor serve runs until SIGINT or SIGTERM, and this process cannot receive them');
  const local = (path: string) => resolve(ctx.io.cwd, path);
  const tls =
    options.tlsCert && options.tlsKey
      ? { cert: readPem(local(options.tlsCert), 'certificate'), key: readPem(local(options.tlsKey), 'key') }
      : undefined;
  const stateDir = options.state !== undefined ? local(options.state) : ctx.stateDir;
  const chosen = {
    roleExpansion: options.roleExpansion,
    roleLists: options.roleLists,
    uploadGate: options.uploadGate,
    sysAdmin: options.sysAdmin,
    httpRpc: options.httpRpc,
    release: options.release,
    keyLogin: options.keyLogin,
  };
  const settings: Partial<ApplianceSettings> = {
    ...(options.emulate ? EMULATIONS[options.emulate] : {}),
    ...Object.fromEntries(Object.entries(chosen).filter(([, v]) => v !== undefined)),
  };
  // The port first: a serve that cannot listen creates and seeds no state (a new --state
  // directory, an administrator key) for nothing. A fixed port is tried, then let go for the
  // server below; port 0 always binds.
  if (options.port !== 0)
    await listenOrExplain(options.host, options.port, () => tryListen(options.host, options.port));
  const appliance = Appliance.open({ stateDir, settings });
  // Uploads cut short by a killed server left their temporary files; nothing else refers to them.
  // Opening swept those it had listed; the walk finds any from before the list was kept.
  const swept = [...appliance.sweptUploads, ...sweepStrayUploads(appliance.store.mntDir)];
  if (swept.length > 0) ctx.log(`stor serve: removed ${swept.length} temporary file(s) of interrupted uploads`);
  const log = (line: string) => {
    if (ctx.globals.verbose) ctx.io.stderr.write(`stor serve: ${line}\n`);
  };
  let server;
  try {
    server = await listenOrExplain(options.host, options.port, () =>
      startServer({
        appliance,
        host: options.host,
        port: options.port,
        ...(tls ? { tls } : {}),
        ...(options.wsIdleTimeout !== undefined ? { wsIdleTimeoutSeconds: options.wsIdleTimeout } : {}),
        log,
      }),
    );
  } catch (err) {
    appliance.close();
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
  ctx.log(`stor serve: state in ${stateDir}; the administrator key is in ${data.admin_key_file}`);
  ctx.log(
    `stor serve: emulating ${emulationOf(appliance.settings)}: release ${appliance.release.versionShort}, role expansion ${appliance.settings.roleExpansion}, role lists ${appliance.settings.roleLists}, ` +
      `upload gate ${appliance.settings.uploadGate}, SYS_ADMIN ${appliance.settings.sysAdmin}, POST /api/current ${appliance.settings.httpRpc}, key login ${appliance.settings.keyLogin}`,
  );
  if (options.wsIdleTimeout !== undefined) {
    ctx.log(
      `stor serve: WebSockets on which the server sends nothing for ${options.wsIdleTimeout} s are dropped (code 1006), as behind the appliance's proxy`,
    );
  }
  if (!tls && !isLoopbackHost(options.host)) {
    ctx.log(
      'stor serve: warning: no TLS on a network address; like a real appliance, this server revokes API keys sent to it in clear',
    );
  }

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const off = ctx.io.onSignal?.((s) => {
      off?.();
      resolve(s);
    });
  });
  ctx.log(`stor serve: ${signal}: finishing calls in flight, then stopping`);
  await server.close();
  appliance.close();
  ctx.log('stor serve: stopped');
  return { data, view: { kind: 'json' }, streamed: true };
}

export const serveCommand = defineCommand({
  summary: 'run the emulated appliance as a network server (JSON-RPC over WebSocket and HTTP)',
  effect: 'change',
  options,
  examples: [
    'stor serve --port 0',
    'stor serve --host 0.0.0.0 --port 8443 --tls-cert cert.pem --tls-key key.pem',
    'stor serve --state /tmp/rehearsal --role-expansion as-reported',
    'stor serve --state /tmp/real --emulate truenas-25.10.1',
    'stor serve --state /tmp/next --emulate truenas-26.0',
    'stor serve --ws-idle-timeout 60           # behave like the appliance behind its nginx',
  ],
  notes:
    'Settings given here (except --ws-idle-timeout, a server option) are stored with the state. Stop with Ctrl-C (SIGINT) or SIGTERM.',
  run: (ctx, _args, opts) => serve(ctx, opts),
});
