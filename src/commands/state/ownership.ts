/**
 * stor's ownership marker: what `--prune` may delete. It lives on the appliance, so every
 * operator's stor (and every CI run) sees the same one. 25.10.1 gives groups, privileges and API
 * keys no free-text field (MW/api/v25_10_1/group.py GroupCreate, privilege.py PrivilegeCreateArgs,
 * api_key.py ApiKeyCreate), and a user's only one, `full_name`, is part of the desired state
 * itself. So the marker is a ZFS user property (any `module:property` name, MW/plugins/pool_/dataset.py
 * `user_properties_update`) on the first pool's root dataset, one per object:
 * `stor.own:<kind>:<sha256 of the name, 16 hex>` = `<id> <name>`: the object's name (a name may
 * hold characters a property name may not) and the id the appliance gave the object stor made, so
 * an object of that name made later by hand (after stor's was deleted outside stor) is not taken
 * for stor's (ids are never reused: every table is AUTOINCREMENT, MW/alembic/env.py:44). A dataset carries its own: `stor.own:dataset` = its name (the value tells a dataset's
 * own mark from one inherited from a marked parent). docs/STATE.md explains the choice.
 */
import { createHash } from 'node:crypto';

/**
 * The kind a mark names: each adapter marks what it makes under a kind word of its own (`group`,
 * `api_key`, `nfs_share`), written in the key with `-` for `_`. Any such word is read, so a new
 * kind's marks need nothing here.
 */
export type MarkedKind = string;

const KIND_WORD = /^[a-z][a-z0-9_]*$/;

export const DATASET_MARK = 'stor.own:dataset';

export function markKey(kind: MarkedKind, name: string): string {
  if (!KIND_WORD.test(kind)) throw new Error(`not a kind word for a mark: ${JSON.stringify(kind)}`);
  return `stor.own:${kind.replaceAll('_', '-')}:${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

/** A mark's value: the id the object stor made has, and its name. */
export const markValue = (name: string, id: number): string => `${id} ${name}`;

/** Which objects of each kind stor made: names read from the root datasets' own (LOCAL) markers. */
export interface Marks {
  /** The root dataset the marks are written on; null on a target without a pool (nothing can be marked). */
  home: string | null;
  /** By name, the id of the object stor made (null for a mark that holds the name alone, as the first marks did). */
  owned: ReadonlyMap<MarkedKind, ReadonlyMap<string, number | null>>;
}

interface UserProperty {
  value?: string | null;
  source?: string | null;
}

export function readMarks(
  roots: readonly { id: string; user_properties?: Record<string, unknown> | undefined }[],
): Marks {
  const owned = new Map<MarkedKind, Map<string, number | null>>();
  const of = (kind: MarkedKind) => owned.get(kind) ?? owned.set(kind, new Map()).get(kind)!;
  for (const root of roots) {
    for (const [key, raw] of Object.entries(root.user_properties ?? {})) {
      // `stor.own:dataset` (a dataset's own mark) has no hash: not one of these.
      const m = /^stor\.own:([a-z][a-z0-9-]*):[0-9a-f]{16}$/.exec(key);
      const p = raw as UserProperty;
      if (!m || typeof p?.value !== 'string' || (p.source !== undefined && p.source !== null && p.source !== 'LOCAL'))
        continue;
      const kind = m[1]!.replaceAll('-', '_');
      // The key is the hash of the name: it tells `<id> <name>` from a name alone that holds a space.
      const withId = /^(\d+) ([\s\S]+)$/.exec(p.value);
      if (withId && markKey(kind, withId[2]!) === key) of(kind).set(withId[2]!, Number(withId[1]));
      else if (markKey(kind, p.value) === key) of(kind).set(p.value, null);
    }
  }
  const home = [...roots].map((r) => r.id).sort()[0] ?? null;
  return { home, owned };
}

/** Whether stor made this object: its name is marked, with its id (or by a mark of the name alone). */
export function madeByStor(marks: Marks, kind: MarkedKind, name: string, id: number): boolean {
  const made = marks.owned.get(kind);
  return made !== undefined && made.has(name) && (made.get(name) === null || made.get(name) === id);
}

/** Whether a dataset's own user properties carry stor's mark for it. */
export function datasetMarked(id: string, userProperties: Record<string, unknown> | undefined): boolean {
  const p = userProperties?.[DATASET_MARK] as UserProperty | undefined;
  return p?.value === id && (p.source === undefined || p.source === null || p.source === 'LOCAL');
}
