import { callForFields, prepareAnswers } from '../../core/contract/client.js';
import type { TargetInfo } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { defineCommand, flag, type OptionValues } from '../framework/declare.js';
import { describeRelease, targetRelease } from '../shared/target-release.js';
import { RELEASES } from '../../core/releases/index.js';
import { minimalRoleList, release25101Catalogue } from '../../core/roles/index.js';

const options = {
  roles: flag('list every effective role on a terminal too (piped and --json always do)'),
};

/** `stor whoami --json`: who the target says we are. */
export interface WhoamiResult {
  username: string;
  uid: number;
  gid: number | null;
  full_name: string;
  /** In the appliance's order: LOCAL, API_KEY, SYS_ADMIN. */
  account_attributes: string[];
  /** Number of effective roles (FULL_ADMIN holders: the whole catalogue). */
  role_count: number;
  /** Effective roles, sorted. */
  roles: string[];
  web_shell: boolean;
  target: TargetInfo;
  /** The target's `system.version_short` (the emulator's release), null when it would not say. */
  release: string | null;
  /** Whether the target is stor's emulator. */
  emulator: boolean;
}

/**
 * `[...list].sort()`, without the sort when the list is in that order already: stor's emulator sends
 * `$set` sorted (appliance/methods/auth.ts describeSession), and sorting its 141 roles again cost the
 * session agent 25-30 µs per target of a fleet's `whoami` (Node 24; the check, 11 µs). A real appliance sends its
 * Python set's order (MW/plugins/account_/privilege.py:376-405), which is sorted here as before.
 * `<` on strings compares UTF-16 code units, as the default sort does.
 */
function sortedCopy(list: readonly string[]): string[] {
  for (let i = 1; i < list.length; i++) if (list[i]! < list[i - 1]!) return [...list].sort();
  return [...list];
}

function describeTarget(t: TargetInfo): string {
  return t.kind === 'embedded' ? `embedded (${t.stateDir})` : `${t.url}${t.profile ? ` (profile ${t.profile})` : ''}`;
}

export async function whoami(
  ctx: CommandContext,
  opts: OptionValues<typeof options>,
): Promise<CommandResult<WhoamiResult>> {
  const opening = ctx.transport();
  // While a remote login is under way (its key's slow check), not once it is done. The embedded
  // appliance's answers are not checked again (callForFields), so nothing is built for them.
  void ctx.target().then(
    (spec) => spec.kind === 'embedded' || prepareAnswers('auth.me', 'stor.emulation', 'system.version_short'),
    () => undefined,
  );
  const transport = await opening;
  const [me, release] = await Promise.all([callForFields(transport, 'auth.me'), targetRelease(transport)]);
  const roles = sortedCopy(me.privilege.roles.$set);
  const data: WhoamiResult = {
    username: me.pw_name,
    uid: me.pw_uid,
    gid: me.pw_gid,
    full_name: me.pw_gecos,
    account_attributes: me.account_attributes,
    role_count: roles.length,
    roles,
    web_shell: me.privilege.web_shell,
    target: transport.target,
    release: release.version,
    emulator: release.emulator,
  };
  const tty = ctx.io.stdout.isTTY === true;
  return recordResult(data, {
    fields: [
      ['username', data.username],
      ['uid', data.uid],
      ['gid', data.gid],
      ['full name', data.full_name],
      ['account attributes', data.account_attributes],
      ['web shell', data.web_shell],
      ['target', describeTarget(data.target)],
      ['release', describeRelease(release)],
      [
        'effective roles',
        tty && !opts.roles
          ? `${data.role_count}, from ${minimalRoleList(release.release ? RELEASES[release.release].catalogue() : release25101Catalogue(), roles).join(', ') || '-'} (--roles lists them)`
          : data.role_count,
      ],
    ],
    // On a terminal the whole list (141 for FULL_ADMIN) is asked for; piped, scripts get it as before.
    ...(tty && !opts.roles ? {} : { list: { label: 'roles', items: roles } }),
  });
}

export const whoamiCommand = defineCommand({
  summary: 'show the identity the target logs in as: user, account attributes, effective roles',
  effect: 'read',
  fanOut: 'read',
  options,
  examples: ['stor whoami', 'stor whoami --roles', 'stor whoami --json | jq .role_count'],
  run: (ctx, _args, opts) => whoami(ctx, opts),
});
