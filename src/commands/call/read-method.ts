import { CONTRACT } from '../../core/contract/index.js';
import { RELEASE_NAMES, contractFor } from '../../core/releases/index.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';

/**
 * Methods any session may call that only read. Their access names no role (logged in, or not even
 * that), so the roles cannot tell; each is read-only in 25.10.1 (MW/plugins/auth.py `me`,
 * MW/plugins/system/info.py `version`, core's `get_jobs`, `get_methods`, `ping`).
 */
const READ_WITHOUT_ROLES: ReadonlySet<string> = new Set([
  'auth.me',
  'auth.mechanism_choices',
  'core.ping',
  'core.get_jobs',
  'core.get_methods',
  'privilege.roles',
  'system.version',
  'system.version_short',
  'stor.emulation',
]);

// READONLY_ADMIN reads everything; beside API_KEY_WRITE (api_key.create) it does not make the method a read.
const isReadRole = (role: string) => role.endsWith('_READ') || role === 'READONLY_ADMIN';

/**
 * `stor call METHOD --targets` runs only what reads: a method whose every role is a `*_READ` role
 * (as 25.10.1 names them: POOL_READ, PRIVILEGE_READ…, or READONLY_ADMIN), or one of the few above. A method that
 * changes things, or one the contract does not know (so stor cannot tell), is refused.
 */
export function assertReadMethod(method: string): void {
  const known = readsOnly(method);
  if (known === undefined) {
    throw new StorError(
      E.BAD_TARGETS,
      `stor cannot tell whether ${JSON.stringify(method)} only reads, so it does not call it on several targets`,
      {
        hint: 'call it a profile at a time with --profile; `stor call --help` lists the methods stor knows',
      },
    );
  }
  if (!known) {
    throw new StorError(
      E.BAD_TARGETS,
      `${method} changes things (or may): \`stor call --targets\` calls only methods that read`,
      {
        hint: 'call it a profile at a time with --profile',
      },
    );
  }
}

/**
 * Whether `method` only reads, by the rule above; undefined for a method no release's contract knows.
 * A method a later release added (26.0's api_key.convert_raw_key) is judged by that release's entry:
 * the targets are not asked before the check.
 */
export function readsOnly(method: string): boolean | undefined {
  // Own entries only: `toString` or `__proto__` would otherwise find Object.prototype's, which has no access.
  const contract = Object.hasOwn(CONTRACT, method)
    ? (CONTRACT as Record<string, { access: (typeof CONTRACT)[keyof typeof CONTRACT]['access'] }>)[method]
    : RELEASE_NAMES.map((release) => contractFor(release).get(method)).find((entry) => entry !== undefined);
  if (!contract) return undefined;
  const { access } = contract;
  return access.kind === 'roles'
    ? access.roles.length > 0 && access.roles.every(isReadRole)
    : READ_WITHOUT_ROLES.has(method);
}
