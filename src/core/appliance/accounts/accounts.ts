import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { SECRET_PLACEHOLDER } from '../../contract/accounts-common.js';
import type { groupEntry } from '../../contract/group.js';
import type { privilegeEntry } from '../../contract/privilege.js';
import type { userEntry } from '../../contract/user.js';
import type { Db } from '../../store/store.js';
import { ADMIN_UID } from '../../store/seed.js';
import { readSettings } from '../../store/settings.js';
import { listGroups, type GroupRecord } from '../../store/groups.js';
import { listPrivileges, type PrivilegeRecord } from '../../store/privileges.js';
import { listUsers, type UserRecord } from '../../store/users.js';
import { listApiKeys } from '../../store/api-keys.js';
import { listUsersWithSecret } from '../../store/twofactor.js';

/** `BASE_RID_USER` / `BASE_RID_GROUP` and the well-known RIDs (MW/utils/sid.py). */
const BASE_RID_USER = 20_000;
const BASE_RID_GROUP = 200_000;
const DOMAIN_RID = { ADMINS: 512, GUESTS: 514 } as const;

/**
 * A machine SID (`S-1-5-21-a-b-c`) that stays the same for one appliance: derived from when its
 * state was seeded, as a real one is generated once at install.
 */
function serverSidOf(seed: string): string {
  const digest = createHash('sha256').update(`stor-server-sid:${seed}`).digest();
  return `S-1-5-21-${digest.readUInt32BE(0)}-${digest.readUInt32BE(4)}-${digest.readUInt32BE(8)}`;
}

/** The primary group as UserEntry's `group` carries it: the raw database row (`bsdgrp_userns_idmap` 0 = none, -1 = DIRECT). */
function rawGroupRow(g: GroupRecord): UserEntry['group'] {
  return {
    id: g.id,
    bsdgrp_gid: g.gid,
    bsdgrp_group: g.name,
    bsdgrp_builtin: g.builtin,
    bsdgrp_sudo_commands: g.sudo_commands,
    bsdgrp_sudo_commands_nopasswd: g.sudo_commands_nopasswd,
    bsdgrp_smb: g.smb,
    bsdgrp_userns_idmap: g.userns_idmap === null ? 0 : g.userns_idmap === 'DIRECT' ? -1 : g.userns_idmap,
  };
}

/** The entries the account methods answer, as their contracts type them. */
export type UserEntry = z.input<ReturnType<typeof userEntry>>;
export type GroupEntry = z.input<ReturnType<typeof groupEntry>>;
export type PrivilegeEntry = z.input<ReturnType<typeof privilegeEntry>>;

/** GIDs of built-in groups that interactive users may join (`ALLOWED_BUILTIN_GIDS`, MW/plugins/account_/constants.py:24-31). */
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
    /** When the appliance was seeded: what its server SID is derived from. */
    private readonly seededAt: string,
  ) {
    this.groupById = new Map(groups.map((g) => [g.id, g]));
    this.groupByGid = new Map(groups.map((g) => [g.gid, g]));
  }

  static load(db: Db): AccountsSnapshot {
    const keys = new Map<number, number[]>();
    for (const k of listApiKeys(db)) keys.set(k.user_id, [...(keys.get(k.user_id) ?? []), k.id]);
    return new AccountsSnapshot(
      listUsers(db),
      listGroups(db),
      listPrivileges(db),
      keys,
      new Set(listUsersWithSecret(db)),
      readSettings(db).seeded_at ?? '',
    );
  }

  private sid: string | undefined;

  /**
   * `smb.local_server_sid`: the domain part of local SIDs. Derived on first use: the hash is the
   * first in many commands (whoami, a login) that would otherwise pay for starting it.
   */
  get serverSid(): string {
    return (this.sid ??= serverSidOf(this.seededAt));
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

  /** A user's `roles`: the unexpanded roles its groups are granted. */
  rolesOf(user: UserRecord): string[] {
    return this.unexpandedRoles(this.gidsOf(user));
  }

  /** Union of the unexpanded roles of the privileges granted to these GIDs, in first-seen order. */
  private unexpandedRoles(gids: readonly number[]): string[] {
    return [...new Set(this.privilegesForGids(gids).flatMap((p) => p.roles))];
  }

  /** `group_extend` (MW/plugins/account.py:1925-1960). */
  groupEntry(g: GroupRecord): GroupEntry {
    const users = new Set(this.users.filter((u) => u.groups.includes(g.id) || u.group_id === g.id).map((u) => u.id));
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
      sid: this.groupSid(g),
      roles: this.unexpandedRoles([g.gid]),
      users: [...users],
      immutable: g.builtin && !ALLOWED_BUILTIN_GIDS.has(g.gid),
    };
  }

  private groupSid(g: GroupRecord): string | null {
    if (g.name === 'builtin_administrators') return `${this.serverSid}-${DOMAIN_RID.ADMINS}`;
    if (g.name === 'builtin_guests') return `${this.serverSid}-${DOMAIN_RID.GUESTS}`;
    return g.smb ? `${this.serverSid}-${BASE_RID_GROUP + g.id}` : null;
  }

  /**
   * `user_extend` (MW/plugins/account.py:262-345). The password hashes are never shown: `*` stands
   * for them (what 25.10.1 shows for an account without one); a caller that may not see secrets
   * (neither FULL_ADMIN nor ACCOUNT_WRITE, MW/main.py:834-845) gets the placeholder instead.
   */
  userEntry(u: UserRecord, exposeSecrets: boolean, now = Date.now()): UserEntry {
    const primary = this.groupById.get(u.group_id);
    const hidden = <T>(value: T) => (exposeSecrets ? value : SECRET_PLACEHOLDER);
    // Stored as whole seconds on the appliance (bsdusr_last_password_change).
    const changedAt = u.last_password_change === null ? null : Math.floor(u.last_password_change / 1000) * 1000;
    const age = changedAt === null ? null : Math.floor((now - changedAt) / 86_400_000);
    return {
      id: u.id,
      uid: u.uid,
      username: u.username,
      unixhash: hidden('*'),
      smbhash: hidden('*'),
      home: u.home,
      shell: u.shell,
      full_name: u.full_name,
      builtin: u.builtin,
      smb: u.smb,
      userns_idmap: u.userns_idmap,
      group: primary ? rawGroupRow(primary) : {},
      groups: u.groups,
      password_disabled: u.password_disabled,
      ssh_password_enabled: u.ssh_password_enabled,
      sshpubkey: u.sshpubkey,
      locked: u.locked,
      sudo_commands: u.sudo_commands,
      sudo_commands_nopasswd: u.sudo_commands_nopasswd,
      email: u.email,
      local: true,
      immutable: u.builtin || u.uid === ADMIN_UID,
      twofactor_auth_configured: this.twofactorUsers.has(u.id),
      sid: u.smb ? `${this.serverSid}-${BASE_RID_USER + u.id}` : null,
      last_password_change: changedAt === null ? null : { $date: changedAt },
      password_age: age !== null && age >= 0 ? age : null,
      password_history: hidden([]),
      // No maximum password age is configured (system.security), so never required.
      password_change_required: false,
      roles: this.rolesOf(u),
      api_keys: this.apiKeyIds.get(u.id) ?? [],
    };
  }

  privilegeEntry(p: PrivilegeRecord): PrivilegeEntry {
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
