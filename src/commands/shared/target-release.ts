import { call } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { RpcError, StorError } from '../../core/errors.js';
import { isReleaseName, releaseOfVersion, type ReleaseName } from '../../core/releases/index.js';
import type { Transport } from '../../core/transport/transport.js';
import { targetEmulation } from './emulation.js';

/** What a target told of its release (docs/RELEASES.md "Supported releases"). */
export interface TargetRelease {
  /** `system.version_short` (the emulator's `stor.emulation` release), or null when it would not say. */
  version: string | null;
  /** The release stor judges it as (its catalogue, its lockout rule), or null for one stor does not know. */
  release: ReleaseName | null;
  /** True for `stor serve` or the embedded appliance. */
  emulator: boolean;
}

const asked = new WeakMap<object, Promise<TargetRelease>>();

/**
 * The target's release, asked once per connection: the emulator says it in `stor.emulation`; a real
 * appliance in `system.version_short`, which needs a login but no role (MW/plugins/system/product.py:75-85).
 * Once per shared connection too (Transport.sharedConnection): the session agent's commands on one
 * pooled connection share its answer, as they share the connection's fixed answers
 * (src/core/session/pooled-session.ts FIXED_FOR_CONNECTION).
 */
export function targetRelease(t: Transport): Promise<TargetRelease> {
  const scope = t.sharedConnection?.() ?? t;
  let known = asked.get(scope);
  if (known === undefined) {
    known = ask(t);
    asked.set(scope, known);
    // A failed ask (a dropped connection) is not remembered: the next one asks again.
    known.catch(() => asked.delete(scope));
  }
  return known;
}

async function ask(t: Transport): Promise<TargetRelease> {
  const emulation = await targetEmulation(t);
  if (emulation) {
    const named = emulation.settings.release;
    return {
      version: emulation.release,
      release: named !== undefined && isReleaseName(named) ? named : releaseOfVersion(emulation.release),
      emulator: true,
    };
  }
  const version = await call(t, 'system.version_short').then(
    (v) => (v !== '' ? v : null),
    (err: unknown) => {
      // A refusal, or an answer that is not a version string (a broken or lying appliance): the
      // release is unknown, judged as one stor does not know, and the command goes on.
      if (err instanceof RpcError || (err instanceof StorError && err.code === E.MALFORMED_ANSWER.code)) return null;
      throw err;
    },
  );
  return { version, release: version === null ? null : releaseOfVersion(version), emulator: false };
}

/** `TrueNAS 26.0.0-RC.1`, `TrueNAS 25.10.1, stor emulator`, `release unknown`: for headings and records. */
export function describeRelease(r: TargetRelease): string {
  if (r.version === null) return 'release unknown';
  return `TrueNAS ${r.version}${r.emulator ? ', stor emulator' : ''}`;
}
