import type { Db } from '../store/store.js';
import { readSettings, writeSetting } from '../store/settings.js';

/**
 * How this emulated appliance behaves where 25.10.1 is defective (SPEC §2.2, §2.5). Stored with
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
  /** `sys-admin`: the current upload gate (SYS_ADMIN only). `role`: FILESYSTEM_DATA_WRITE suffices. */
  uploadGate: 'sys-admin' | 'role';
}

export const SETTING_CHOICES = {
  roleExpansion: ['terminating', 'as-reported', 'truenas-25.10.1'],
  roleLists: ['accept', 'reject-overlap'],
  uploadGate: ['sys-admin', 'role'],
} as const satisfies { [K in keyof ApplianceSettings]: readonly ApplianceSettings[K][] };

export const DEFAULT_SETTINGS: ApplianceSettings = {
  roleExpansion: 'terminating',
  roleLists: 'accept',
  uploadGate: 'sys-admin',
};

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
  };
}

export function saveSettings(db: Db, changes: Partial<ApplianceSettings>): void {
  for (const [key, value] of Object.entries(changes)) {
    if (value !== undefined) writeSetting(db, key, value);
  }
}
