import type { TraceSink } from '../../core/transport/trace.js';
import type { Transport } from '../../core/transport/transport.js';
import type { IO } from '../output/io.js';
import { codePathTaken } from '../../core/code-path.js';
import { readCa, type TargetSpec } from './target.js';

/*
 * Apart from context.ts, whose imports (the output modules, the session pool) the head start
 * (startup/early-target.ts) must not wait for: it opens the target with this very code before the
 * CLI has loaded.
 */

export interface OpenOptions {
  trace?: TraceSink;
  /** The process's signals: an embedded upload stops on them and removes its temporary file. */
  onSignal?: IO['onSignal'];
  /** A WebSocket target's RemoteOptions.onLoginSent; the other transports never tell it. */
  onLoginSent?: () => void;
}

/** What `-v` says of the target before any call: never the key, only where it came from. */
export function traceTarget(spec: TargetSpec, trace: TraceSink): void {
  if (spec.kind === 'embedded') {
    trace(`target: the embedded appliance, state ${spec.stateDir}`);
    trace(`transport: embedded (in this process), key from ${spec.apiKey ? 'STOR_API_KEY' : 'the state directory'}`);
    return;
  }
  trace(`target: ${spec.endpoint.display}${spec.profile ? `, profile ${spec.profile}` : ', no profile'}`);
  const tls = !spec.endpoint.secure
    ? 'none'
    : spec.insecure
      ? 'unverified (--insecure)'
      : spec.caPath
        ? `verified against ${spec.caPath}`
        : 'verified against the system CAs';
  trace(
    `transport: ${spec.rpc === 'http' ? `http (POST ${spec.endpoint.rpcHttp.href})` : `ws (${spec.endpoint.rpcWs.href})`}, TLS ${tls}`,
  );
}

/**
 * Opens a transport to a resolved target. Each implementation is loaded on first use, so that
 * `--help` and `--version` never pay for SQLite, WebSockets or the appliance.
 */
export async function openTarget(spec: TargetSpec, timeoutSeconds: number, open: OpenOptions = {}): Promise<Transport> {
  const { trace, onSignal, onLoginSent } = open;
  if (trace) traceTarget(spec, trace);
  // The code cache then holds this transport's functions too (code-cache.ts, "code paths").
  codePathTaken(spec.kind === 'embedded' ? 'embedded' : spec.rpc === 'http' ? 'http' : 'ws');
  if (spec.kind === 'embedded') {
    const { EmbeddedTransport } = await import('../../core/transport/embedded.js');
    return EmbeddedTransport.open({
      stateDir: spec.stateDir,
      timeoutSeconds,
      ...(spec.apiKey ? { apiKey: spec.apiKey } : {}),
      ...(trace ? { trace } : {}),
      ...(onSignal ? { onSignal } : {}),
    });
  }
  const { apiKeyLogin } = await import('../../core/transport/login-strategies.js');
  const options = {
    endpoint: spec.endpoint,
    login: apiKeyLogin(spec.apiKey, spec.username, spec.scramOnly === true),
    timeoutSeconds,
    insecure: spec.insecure,
    ...(spec.caPath ? { ca: readCa(spec.caPath) } : {}),
    ...(spec.profile ? { profile: spec.profile } : {}),
    ...(spec.keepaliveSeconds !== undefined ? { keepaliveSeconds: spec.keepaliveSeconds } : {}),
    ...(trace ? { trace } : {}),
  };
  if (spec.rpc === 'http') {
    const { HttpRpcTransport } = await import('../../core/transport/remote-http.js');
    return HttpRpcTransport.open(options);
  }
  const { RemoteTransport } = await import('../../core/transport/remote.js');
  return RemoteTransport.open(onLoginSent ? { ...options, onLoginSent } : options);
}
