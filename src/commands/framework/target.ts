import { X509Certificate } from 'node:crypto';
import { resolve } from 'node:path';
import {
  EMBEDDED_PROFILE,
  ProfileStore,
  embeddedNameClash,
  profileNamed,
  unknownProfile,
  type ProfilesDocument,
} from '../../core/config/profiles.js';
import { othersInHome, stateDirFrom, type Env } from '../../core/config/paths.js';
import { StorError } from '../../core/errors.js';
import { switchSetting } from '../../core/session/setting.js';
import { API_KEY_PATTERN } from '../../core/store/secrets.js';
import { E } from '../../core/error-catalogue.js';
import { CA_FILE, readSmallFile } from '../../core/config/small-file.js';
import { parseEndpoint, secureDisplay, type Endpoint } from '../../core/transport/endpoint.js';
import type { IO } from '../output/io.js';

/** The target-selecting global options (docs/REMOTE.md "Remote appliances", Which target). */
export interface TargetOptions {
  url?: string;
  profile?: string;
  insecure?: boolean;
  ca?: string;
  rpc?: 'ws' | 'http';
}

export type TargetSpec =
  | {
      kind: 'embedded';
      stateDir: string;
      apiKey?: string;
      /** Nothing chose it: no URL, and no profile named or current. A change made there says so (implicitTargetCheck). */
      implicit?: true;
    }
  | {
      kind: 'remote';
      endpoint: Endpoint;
      apiKey: string;
      /** The key's user, which SCRAM (26) names: STOR_USER, else the profile's when its key is used. */
      username?: string;
      /** The appliance's profile says it speaks SCRAM (Profile.scram): the key is never sent itself. */
      scramOnly?: boolean;
      insecure: boolean;
      caPath?: string;
      rpc: 'ws' | 'http';
      profile?: string;
      /** Seconds between WebSocket keepalive pings (STOR_WS_KEEPALIVE); absent: the transport's default. */
      keepaliveSeconds?: number;
    };

export const DEFAULT_TIMEOUT_SECONDS = 30;

/**
 * A variable of stor's own that is set must say something: an exported but empty `STOR_API_KEY`
 * (a failed `$(pass …)`) would otherwise run as the embedded administrator. Unset stays unset.
 */
export function envSetting(env: IO['env'], name: 'STOR_API_KEY' | 'STOR_URL' | 'STOR_USER'): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (value.trim() === '') {
    throw new StorError(E.EMPTY_ENV, `${name} is set but empty`, {
      hint: `give it a value, or unset it (\`unset ${name}\`)`,
    });
  }
  const trimmed = value.trim();
  // A key is `<id>-<64 letters and digits>` (MW/plugins/api_key.py:214, generate_string(64)):
  // anything else is refused here, before it goes to a target, and never echoed.
  if (name === 'STOR_API_KEY' && !API_KEY_PATTERN.test(trimmed)) {
    throw new StorError(E.MALFORMED_KEY, 'STOR_API_KEY is not an API key: expected <id>-<64 letters and digits>', {
      hint: 'set it to the whole key shown when it was created (`stor api-key create`), or unset it',
    });
  }
  return trimmed;
}

/**
 * The embedded appliance's state directory, refused when it lies in another user's home (root run
 * with that user's HOME, `sudo -E`): made there it would be root's, and its default is that
 * user's own state. No other place is the user's choice to make for them (docs/ENVIRONMENT.md "Where state
 * lives").
 */
function embeddedStateDir(env: Env): string {
  const dir = stateDirFrom(env);
  const owner = othersInHome(dir, env);
  if (owner !== undefined) {
    throw new StorError(
      E.STATE_UNWRITABLE,
      `the state directory ${dir} is in a home owned by uid ${owner}, not by this user (uid ${process.getuid?.()}): stor creates nothing there`,
      {
        hint: 'run stor as that user, or with your own HOME (`sudo -H`, not `sudo -E`), or point STOR_HOME at a directory of your own',
      },
    );
  }
  return dir;
}

/**
 * Chooses the target once, by precedence flag > environment > profile > embedded:
 * the URL from `--url`, else `STOR_URL`, else the selected profile (`--profile`, `STOR_PROFILE`,
 * else the current one); with none of these, the embedded appliance. A URL given without a
 * profile borrows the saved profile of the same appliance, so `stor login --url X` then
 * `stor --url X …` works. The key comes from `STOR_API_KEY`, else the profile. `profiles`: the
 * profiles file as a `--targets` run read it once for all its targets.
 */
export async function resolveTarget(
  opts: TargetOptions,
  io: IO,
  trace?: (message: string) => void,
  profiles?: ProfilesDocument,
): Promise<TargetSpec> {
  const env = io.env;
  const envKey = envSetting(env, 'STOR_API_KEY');
  const url = opts.url ?? envSetting(env, 'STOR_URL');
  const named = opts.profile ?? (env.STOR_PROFILE || undefined);
  const doc = profiles ?? (await ProfileStore.of(env).read());
  let profileName = named ?? (url === undefined ? doc.current : undefined);
  // Checked whatever the target: a --ca that cannot be used must not pass silently.
  if (opts.ca !== undefined) readCa(resolve(io.cwd, opts.ca));
  if (profileName === EMBEDDED_PROFILE) {
    // The reserved name (docs/REMOTE.md "Remote appliances"): the embedded appliance, never a guess between it and a saved profile.
    const saved = profileNamed(doc, EMBEDDED_PROFILE);
    if (saved) throw embeddedNameClash(saved.url);
    if (url === undefined)
      return { kind: 'embedded', stateDir: embeddedStateDir(env), ...(envKey ? { apiKey: envKey } : {}) };
  }
  if (named !== undefined && !profileNamed(doc, named)) throw unknownProfile(named, Object.keys(doc.profiles));
  if (profileName === undefined && url !== undefined) {
    const endpoint = parseEndpoint(url);
    const matches = profilesFor(endpoint, doc);
    profileName = matches[0];
    if (profileName !== undefined) {
      const others = matches.length > 1 ? ` (also saved for it: ${matches.slice(1).join(', ')})` : '';
      trace?.(`stor: ${endpoint.display}: using the key and settings of profile "${profileName}"${others}`);
    }
  }
  const profile = profileName !== undefined ? profileNamed(doc, profileName) : undefined;

  if (url === undefined && !profile) {
    return { kind: 'embedded', stateDir: embeddedStateDir(env), ...(envKey ? { apiKey: envKey } : {}), implicit: true };
  }
  const endpoint = parseEndpoint(url ?? profile!.url);
  const apiKey = envKey ?? profile?.apiKey;
  if (!apiKey) {
    throw new StorError(E.NO_API_KEY, `no API key for ${endpoint.display}`, {
      // Never a URL login would refuse: http://example.com is suggested as wss://example.com.
      hint: `run \`stor login --url ${secureDisplay(endpoint)}\`, or set STOR_API_KEY`,
    });
  }
  const caPath = opts.ca ?? profile?.ca;
  const username = envSetting(env, 'STOR_USER') ?? (envKey === undefined ? profile?.username : undefined);
  const keepalive = keepaliveFrom(env.STOR_WS_KEEPALIVE);
  return {
    kind: 'remote',
    endpoint,
    apiKey,
    ...(username ? { username } : {}),
    // Pinned to the appliance, whichever key goes to it: a downgrade must not get STOR_API_KEY's either.
    ...(profile?.scram ? { scramOnly: true } : {}),
    // --insecure can only turn verification off; a profile saved with it keeps it.
    insecure: opts.insecure === true || (profile?.insecure ?? false),
    ...(caPath ? { caPath: resolve(io.cwd, caPath) } : {}),
    rpc: opts.rpc ?? profile?.rpc ?? 'ws',
    ...(profileName && profile ? { profile: profileName } : {}),
    ...(keepalive !== undefined ? { keepaliveSeconds: keepalive } : {}),
  };
}

/**
 * A change about to be made on the embedded appliance that nothing chose (a fresh host, or after
 * `stor logout`) is no surprise: it is refused when STOR_REQUIRE_TARGET=1 (runbooks, CI), said
 * through `warn` when it is unset, and made quietly with STOR_REQUIRE_TARGET=0 (the words STOR_SESSION takes, any other is refused). Reads are not told: they change nothing, and their
 * output shows what they read. `--profile embedded`, STOR_PROFILE=embedded or `stor profile use
 * embedded` choose it (docs/REMOTE.md "Which target").
 */
export function implicitTargetCheck(spec: TargetSpec, env: IO['env'], warn: (message: string) => void): void {
  if (spec.kind !== 'embedded' || !spec.implicit) return;
  const required = switchSetting(env.STOR_REQUIRE_TARGET);
  if (required === 'invalid') {
    throw new StorError(E.BAD_REQUIRE_TARGET, 'STOR_REQUIRE_TARGET is none of 1, 0, on, off, true, false, yes, no', {
      hint: 'set STOR_REQUIRE_TARGET=1 to refuse changes no target was chosen for, 0 to allow them quietly, or unset it',
    });
  }
  // off: the embedded appliance is the expected fallback here (a test bed, a laptop): nothing to tell.
  if (required === 'off') return;
  if (required === 'on') {
    throw new StorError(
      E.NO_TARGET,
      'no target chosen: this change would be made on the embedded appliance, and STOR_REQUIRE_TARGET is set',
      {
        hint: 'choose one: `--profile NAME`, `--url URL`, STOR_PROFILE or STOR_URL; `--profile embedded` for the embedded appliance',
      },
    );
  }
  warn('stor: on the embedded appliance (no profile selected)');
}

/**
 * Whether a saved URL names the same appliance as `endpoint`, as parseEndpoint normalises them
 * (scheme, host case, default port, trailing slash, /api/current). A URL that no longer parses names none.
 */
export function isSameAppliance(url: string, endpoint: Endpoint): boolean {
  try {
    return parseEndpoint(url).display === endpoint.display;
  } catch {
    return false;
  }
}

/** The saved profiles for the same appliance as `endpoint`, best first: the current one, then by name. */
export function profilesFor(endpoint: Endpoint, doc: ProfilesDocument): string[] {
  const same = Object.keys(doc.profiles)
    .filter((name) => isSameAppliance(profileNamed(doc, name)!.url, endpoint))
    .sort();
  return doc.current !== undefined && same.includes(doc.current)
    ? [doc.current, ...same.filter((n) => n !== doc.current)]
    : same;
}

/** `STOR_WS_KEEPALIVE`: seconds between pings on an idle WebSocket, for proxies quicker than 60 s; 0 turns them off. */
function keepaliveFrom(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) {
    throw new StorError(
      E.BAD_KEEPALIVE,
      `STOR_WS_KEEPALIVE takes a number of seconds (0 for no pings), not ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** The CA bundle of `--ca` (or a profile's `ca`): a regular file under 1 MB, readable, and holding at least one PEM certificate that parses. */
export function readCa(path: string): Buffer {
  let pem: Buffer;
  try {
    pem = readSmallFile(path, CA_FILE).data;
  } catch (err) {
    if (err instanceof StorError) throw err;
    throw new StorError(E.CA_UNREADABLE, `cannot read the CA file ${path}: ${(err as Error).message}`);
  }
  const certs = pem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const valid = certs.filter((c) => {
    try {
      new X509Certificate(c);
      return true;
    } catch {
      return false;
    }
  });
  if (valid.length === 0 || valid.length !== certs.length) {
    throw new StorError(
      E.CA_INVALID,
      `the CA file ${path} holds no usable PEM certificate${certs.length > valid.length && valid.length > 0 ? ' (some do not parse)' : ''}`,
      {
        hint: 'give the PEM file of the CA that signed the appliance certificate (-----BEGIN CERTIFICATE----- …)',
      },
    );
  }
  return pem;
}
