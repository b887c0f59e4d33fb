import { DEFAULT_RELEASE, RELEASE_NAMES, type ReleaseName } from '../releases/index.js';
import type { Db } from '../store/store.js';
import { readSettings, writeSetting } from '../store/settings.js';

/**
 * How this emulated appliance behaves where 25.10.1 is defective (docs/RELEASES.md "Emulator behaviours"). Stored with
 * the state, so `stor serve --role-expansion …` and later embedded runs agree.
 */
export interface ApplianceSettings {
  /**
   * `terminating`: always terminates (the required behaviour). `as-reported`: the login defect as
   * the seed's reports describe it (overlaps and self-including roles). `truenas-25.10.1`: as the
   * 25.10.1 code behaves (only self-including roles; `MW/role.py` `roles_for_role`).
   */
  roleExpansion: 'terminating' | 'as-reported' | 'truenas-25.10.1';
  /** `accept`: save any known roles (as 25.10.1). `reject-overlap`: refuse lists that would break login. */
  roleLists: 'accept' | 'reject-overlap';
  /**
   * Who may upload. `sys-admin`: the gate the reports describe (the SYS_ADMIN attribute only).
   * `role`: the declared intent (FILESYSTEM_DATA_WRITE suffices). `full-admin`: as 25.10.1 does it,
   * the caller may call `filesystem.put`, whose only role is FULL_ADMIN (MW/apps/file_app.py:190-200).
   */
  uploadGate: 'sys-admin' | 'role' | 'full-admin';
  /**
   * Who gets the SYS_ADMIN account attribute. `builtin-administrators`: every member of group 544
   * (the seed's model). `admin-uids`: uid 0 and 950 only, as 25.10.1
   * (MW/utils/account/authenticator.py:253-256).
   */
  sysAdmin: 'builtin-administrators' | 'admin-uids';
  /**
   * `POST /api/current`: `served` (the seed's HTTP form), or `refused` with 405 as 25.10.1's
   * GET-only routes (MW/main.py:277-278).
   */
  httpRpc: 'served' | 'refused';
  /**
   * How API keys log in. `plain`: `<id>-<secret>` sent to the appliance, as 25.10.x. `scram`: as
   * TrueNAS 26, `auth.login_ex` also takes `mechanism: "SCRAM"` (SCRAM-SHA-512, channel binding
   * over TLS), keys carry SCRAM data, and a login whose user lacks API access is DENIED
   * (MW/plugins/auth.py:927-960, 1019-1021 at stable/26; docs/REMOTE.md "SCRAM login (TrueNAS 26)").
   */
  keyLogin: 'plain' | 'scram';
  /**
   * The release this appliance answers as (src/core/releases/): its `system.version`, `/api/versions`
   * and versioned paths, its role catalogue and contract (docs/RELEASES.md "Supported releases").
   */
  release: ReleaseName;
}

export const SETTING_CHOICES = {
  roleExpansion: ['terminating', 'as-reported', 'truenas-25.10.1'],
  roleLists: ['accept', 'reject-overlap'],
  uploadGate: ['sys-admin', 'role', 'full-admin'],
  sysAdmin: ['builtin-administrators', 'admin-uids'],
  httpRpc: ['served', 'refused'],
  keyLogin: ['plain', 'scram'],
  release: RELEASE_NAMES,
} as const satisfies { [K in keyof ApplianceSettings]: readonly ApplianceSettings[K][] };

export const DEFAULT_SETTINGS: ApplianceSettings = {
  roleExpansion: 'terminating',
  roleLists: 'accept',
  uploadGate: 'sys-admin',
  sysAdmin: 'builtin-administrators',
  httpRpc: 'served',
  keyLogin: 'plain',
  release: DEFAULT_RELEASE,
};

/**
 * `stor serve --emulate NAME`: every setting at once. `truenas-25.10.1`, `truenas-25.10.6`,
 * `truenas-25.10.7` and `truenas-26.0` are each release as its source behaves; `as-reported` is the appliance as the
 * seed's reports (JHNF-729/730) describe it.
 */
export const EMULATIONS = {
  'truenas-25.10.1': {
    roleExpansion: 'truenas-25.10.1',
    roleLists: 'accept',
    uploadGate: 'full-admin',
    sysAdmin: 'admin-uids',
    httpRpc: 'refused',
    keyLogin: 'plain',
    release: '25.10.1',
  },
  // 25.10.6, 25.10.7 and 26.0 expand roles with 25.10.1's recursion, no visited set (MW/role.py:354-365;
  // stable/26 MW/role.py:364-379), over their own catalogue; the other rows are as 25.10.1.
  'truenas-25.10.6': {
    roleExpansion: 'truenas-25.10.1',
    roleLists: 'accept',
    uploadGate: 'full-admin',
    sysAdmin: 'admin-uids',
    httpRpc: 'refused',
    keyLogin: 'plain',
    release: '25.10.6',
  },
  'truenas-25.10.7': {
    roleExpansion: 'truenas-25.10.1',
    roleLists: 'accept',
    uploadGate: 'full-admin',
    sysAdmin: 'admin-uids',
    httpRpc: 'refused',
    keyLogin: 'plain',
    release: '25.10.7',
  },
  'truenas-26.0': {
    roleExpansion: 'truenas-25.10.1',
    roleLists: 'accept',
    uploadGate: 'full-admin',
    sysAdmin: 'admin-uids',
    httpRpc: 'refused',
    keyLogin: 'scram',
    release: '26.0',
  },
  'as-reported': {
    roleExpansion: 'as-reported',
    roleLists: 'accept',
    uploadGate: 'sys-admin',
    sysAdmin: 'builtin-administrators',
    httpRpc: 'served',
    keyLogin: 'plain',
    release: '25.10.1',
  },
} as const satisfies Record<string, ApplianceSettings>;

export type EmulationName = keyof typeof EMULATIONS;

/** The preset these settings are, or `custom` when they mix. */
export function emulationOf(settings: ApplianceSettings): EmulationName | 'custom' {
  const match = Object.entries(EMULATIONS).find(([, preset]) =>
    (Object.keys(preset) as (keyof ApplianceSettings)[]).every((k) => preset[k] === settings[k]),
  );
  return (match?.[0] as EmulationName | undefined) ?? 'custom';
}

/** Values earlier versions stored or accepted, and what they are called now. */
export const RENAMED_SETTINGS: Partial<Record<keyof ApplianceSettings, Record<string, string>>> = {
  roleExpansion: { 'release-25.10.1': 'as-reported' },
};

function pick<K extends keyof ApplianceSettings>(key: K, raw: string | undefined): ApplianceSettings[K] {
  const stored = raw === undefined ? undefined : (RENAMED_SETTINGS[key]?.[raw] ?? raw);
  const choices = SETTING_CHOICES[key] as readonly string[];
  return (stored !== undefined && choices.includes(stored) ? stored : DEFAULT_SETTINGS[key]) as ApplianceSettings[K];
}

export function loadSettings(db: Db): ApplianceSettings {
  const raw = readSettings(db);
  return {
    roleExpansion: pick('roleExpansion', raw.roleExpansion),
    roleLists: pick('roleLists', raw.roleLists),
    uploadGate: pick('uploadGate', raw.uploadGate),
    sysAdmin: pick('sysAdmin', raw.sysAdmin),
    httpRpc: pick('httpRpc', raw.httpRpc),
    keyLogin: pick('keyLogin', raw.keyLogin),
    release: pick('release', raw.release),
  };
}

export function saveSettings(db: Db, changes: Partial<ApplianceSettings>): void {
  for (const [key, value] of Object.entries(changes)) {
    if (value !== undefined) writeSetting(db, key, value);
  }
}
