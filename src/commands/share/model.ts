import { foldString } from '../../core/python-casefold.js';
import { queryItems } from '../../core/contract/client.js';
import { queryPages } from '../../core/contract/query-pages.js';
import type { NfsShareEntry } from '../../core/contract/sharing-nfs.js';
import type { SmbShareEntry } from '../../core/contract/sharing-smb.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import { arg } from '../framework/declare.js';

/** The two kinds of share stor knows: NFS exports and SMB shares. */
export type ShareKind = 'nfs' | 'smb';
export const SHARE_KINDS: readonly ShareKind[] = ['nfs', 'smb'];

/** An NFS share as sharing.nfs.query answers it, with its kind. */
export type NfsShare = { kind: 'nfs' } & NfsShareEntry;
/** An SMB share as sharing.smb.query answers it, with its kind. */
export type SmbShare = { kind: 'smb' } & SmbShareEntry;
/** One entry of `stor share list --json` and `stor share show --json`. */
export type Share = NfsShare | SmbShare;

/** The REF every verb but list and create takes, completed from the target's shares. */
export const shareRefArg = {
  ref: arg.required(
    'the share: nfs:ID or smb:ID, an SMB share by name (any case), or an NFS share by its path',
    'share',
  ),
};

/** How a share is named unambiguously: `nfs:3`. */
export const refOf = (s: Share): string => `${s.kind}:${s.id}`;
/** How a person knows it: an SMB share by its name, an NFS share by its path. */
export const nameOf = (s: Share): string => (s.kind === 'smb' ? s.name : s.path);

async function pagedShares<K extends ShareKind>(t: Pick<Transport, 'call'>, kind: K): Promise<Share[]> {
  const method = kind === 'nfs' ? 'sharing.nfs.query' : 'sharing.smb.query';
  // An appliance with thousands of shares answers in bounded pieces (MW/utils/filter_list.py
  // applies order_by, offset and limit).
  const found = await queryPages(t, method, ['id', 'path'], [], { order_by: ['id'] });
  return found.map((entry) => ({ kind, ...entry }) as Share);
}

/** Every share of the kinds asked, NFS first, each kind by id. */
export async function listShares(t: Pick<Transport, 'call'>, kinds: readonly ShareKind[] = SHARE_KINDS) {
  const all: Share[] = [];
  for (const kind of kinds) all.push(...(await pagedShares(t, kind)));
  return all;
}

/** Python's `str.casefold()`, as the appliance compares share names (MW/plugins/smb.py:1253). */
export const casefold = foldString;

/** `nfs:3` → {kind, id}; anything else null. */
function explicitRef(ref: string): { kind: ShareKind; id: number } | null {
  const m = /^(nfs|smb):([0-9]+)$/.exec(ref);
  return m ? { kind: m[1] as ShareKind, id: Number(m[2]) } : null;
}

/**
 * The share REF names: `nfs:ID`/`smb:ID`, else every SMB share of that name (any case, as the
 * appliance compares them) and every NFS share of that path. None is NOT_FOUND; several are
 * AMBIGUOUS_NAME naming each as `kind:id`.
 */
export async function findShare(t: Pick<Transport, 'call'>, ref: string): Promise<Share> {
  const explicit = explicitRef(ref);
  const all = await listShares(t, explicit ? [explicit.kind] : SHARE_KINDS);
  const matches = explicit
    ? all.filter((s) => s.id === explicit.id)
    : all.filter((s) => (s.kind === 'smb' ? casefold(s.name) === casefold(ref) : s.path === ref));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0)
    throw new StorError(E.NOT_FOUND, `no share ${JSON.stringify(ref)}`, {
      hint: '`stor share list` shows the shares: name one as nfs:ID or smb:ID, an SMB share by name, an NFS share by path',
    });
  throw new StorError(
    E.AMBIGUOUS_NAME,
    `${JSON.stringify(ref)} names ${matches.length} shares: ${matches.map((s) => `${refOf(s)} (${nameOf(s)})`).join(', ')}`,
    { hint: `name the one you mean: stor share show ${refOf(matches[0]!)}` },
  );
}

/** The same share read again by id, or null when it is gone. */
export async function rereadShare(t: Pick<Transport, 'call'>, s: Pick<Share, 'kind' | 'id'>): Promise<Share | null> {
  const method = s.kind === 'nfs' ? 'sharing.nfs.query' : 'sharing.smb.query';
  const [entry] = await queryItems(t, method, ['id', 'path'], [['id', '=', s.id]]);
  return entry ? ({ kind: s.kind, ...entry } as Share) : null;
}

/** A value as a change line shows it: text quoted, lists comma-joined, nothing as `-`. */
export function shownValue(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (Array.isArray(v)) return v.length === 0 ? '(none)' : v.join(', ');
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

/** One field of a share that changes: `{field, old, new}` in the appliance's field names. */
export interface ShareChange {
  field: string;
  old: unknown;
  new: unknown;
}

/** `ro: false → true` */
export const changeLine = (c: ShareChange): string => `${c.field}: ${shownValue(c.old)} → ${shownValue(c.new)}`;

const same = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b)
    ? a.length === b.length && a.every((x, i) => x === b[i])
    : a === b || (a === null && b === '') || (a === '' && b === null);

/** The fields of `wanted` that `share` does not have, as changes. */
export function changesOf(share: Share, wanted: Record<string, unknown>): ShareChange[] {
  const have = share as unknown as Record<string, unknown>;
  return Object.entries(wanted)
    .filter(([field, value]) => value !== undefined && !same(have[field], value))
    .map(([field, value]) => ({ field, old: have[field] ?? null, new: value }));
}
