import type { Db } from '../store/store.js';
import { listGroups, type GroupRecord } from '../store/groups.js';
import { listPrivileges, type PrivilegeRecord } from '../store/privileges.js';
import { listUsers, type UserRecord } from '../store/users.js';
import { listApiKeys } from '../store/api-keys.js';
import { listUsersWithSecret } from '../store/twofactor.js';

/** GIDs of built-in groups that interactive users may join (facts §3.2, `ALLOWED_BUILTIN_GIDS`). */
export const ALLOWED_BUILTIN_GIDS: ReadonlySet<number> = new Set([14, 544, 545, 568, 951, 952]);

/** One consistent read of users, groups and privileges, with the joins the entries need. */
export class AccountsSnapshot {
  readonly groupById: Map<number, GroupRecord>;
  readonly groupByGid: Map<number, GroupRecord>;

  constructor(
    readonly users: UserRecord[],
    readonly groups: GroupRecord[],
    readonly privileges: PrivilegeRecord[],
    private readonly apiKeyIds: Map<number, number[]>,
    /** Users with a two-factor secret. */
    private readonly twofactorUsers: ReadonlySet<number>,
  ) {
    this.groupById = new Map(groups.map((g) => [g.id, g]));
    this.groupByGid = new Map(groups.map((g) => [g.gid, g]));
  }

  static load(db: Db): AccountsSnapshot {
    const keys = new Map<number, number[]>();
    for (const k of listApiKeys(db)) keys.set(k.user_id, [...(keys.get(k.user_id) ?? []), k.id]);
    return new AccountsSnapshot(listUsers(db), listGroups(db), listPrivileges(db), keys, new Set(listUsersWithSecret(db)));
  }

  hasTwoFactorSecret(user: UserRecord): boolean {
    return this.twofactorUsers.has(user.id);
  }

  /** GIDs of a user's primary and supplementary groups. */
  gidsOf(user: UserRecord): number[] {
    const ids = [user.group_id, ...user.groups];
    return [...new Set(ids.map((id) => this.groupById.get(id)?.gid).filter((g): g is number => g !== undefined))];
  }

  privilegesForGids(gids: readonly number[]): PrivilegeRecord[] {
    const set = new Set(gids);
    return this.privileges.filter((p) => p.local_groups.some((g) => set.has(g)));
  }

  /** Union of the unexpanded roles of the privileges granted to these GIDs, in first-seen order. */
  private unexpandedRoles(gids: readonly number[]): string[] {
    return [...new Set(this.privilegesForGids(gids).flatMap((p) => p.roles))];
  }

  groupEntry(g: GroupRecord): Record<string, unknown> {
    const users = this.users.filter((u) => u.group_id === g.id || u.groups.includes(g.id)).map((u) => u.id);
    return {
      id: g.id,
      gid: g.gid,
      name: g.name,
      builtin: g.builtin,
      sudo_commands: g.sudo_commands,
      sudo_commands_nopasswd: g.sudo_commands_nopasswd,
      smb: g.smb,
      userns_idmap: g.userns_idmap,
      group: g.name,
      local: true,
      sid: null,
      roles: this.unexpandedRoles([g.gid]),
      users,
      immutable: g.builtin && !ALLOWED_BUILTIN_GIDS.has(g.gid),
    };
  }

  userEntry(u: UserRecord): Record<string, unknown> {
    const primary = this.groupById.get(u.group_id);
    return {
      id: u.id,
      uid: u.uid,
      username: u.username,
      unixhash: '*',
      smbhash: '*',
      home: u.home,
      shell: u.shell,
      full_name: u.full_name,
      builtin: u.builtin,
      smb: u.smb,
      userns_idmap: u.userns_idmap,
      group: primary
        ? {
            id: primary.id,
            bsdgrp_gid: primary.gid,
            bsdgrp_group: primary.name,
            bsdgrp_builtin: primary.builtin,
            bsdgrp_sudo_commands: primary.sudo_commands,
            bsdgrp_sudo_commands_nopasswd: primary.sudo_commands_nopasswd,
            bsdgrp_smb: primary.smb,
            bsdgrp_userns_idmap: primary.userns_idmap,
          }
        : null,
      groups: u.groups,
      password_disabled: u.password_disabled,
      ssh_password_enabled: u.ssh_password_enabled,
      sshpubkey: u.sshpubkey,
      locked: u.locked,
      sudo_commands: u.sudo_commands,
      sudo_commands_nopasswd: u.sudo_commands_nopasswd,
      email: u.email,
      local: true,
      immutable: u.builtin || u.uid === 950,
      twofactor_auth_configured: this.twofactorUsers.has(u.id),
      sid: null,
      last_password_change: u.last_password_change === null ? null : { $date: u.last_password_change },
      password_age: null,
      password_history: null,
      password_change_required: false,
      roles: this.unexpandedRoles(this.gidsOf(u)),
      api_keys: this.apiKeyIds.get(u.id) ?? [],
    };
  }

  privilegeEntry(p: PrivilegeRecord): Record<string, unknown> {
    return {
      id: p.id,
      builtin_name: p.builtin_name,
      name: p.name,
      local_groups: p.local_groups.map((gid) => {
        const g = this.groupByGid.get(gid);
        return g ? this.groupEntry(g) : { gid, sid: null, group: null };
      }),
      ds_groups: [],
      roles: p.roles,
      web_shell: p.web_shell,
    };
  }
}
