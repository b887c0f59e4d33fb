/**
 * NFS shares (`shares.nfs`): matched by path; only the fields the file sets are compared, lists
 * (networks, hosts, security) as sets, networks in the form the appliance stores them. Made after
 * the datasets that hold their paths, deleted before them (their row in kinds/index.ts).
 */
import { call, queryItems } from '../../../core/contract/client.js';
import { NFS_SHARE_DEFAULTS, type NfsShareEntry } from '../../../core/contract/sharing-nfs.js';
import { E } from '../../../core/error-catalogue.js';
import { StorError } from '../../../core/errors.js';
import { storedNetwork } from '../../../core/net/ip-network.js';
import { stateNfsShareSchema } from '../../../core/state/index.js';
import type { Transport } from '../../../core/transport/transport.js';
import { madeByStor } from '../ownership.js';
import type { FieldChange } from '../plan-model.js';
import { sameSet, sorted, stepOf, type DesiredOf, type KindAdapter, type World } from './kind.js';
import { markName } from './mark.js';

type Want = DesiredOf<'shares.nfs'>;
type Fields = Omit<Want, 'path'>;

const sharesIn = (world: World): readonly NfsShareEntry[] => world.objects['shares.nfs'] as readonly NfsShareEntry[];

/** A fresh share's values: export leaves these out. */
const DEFAULTS: Required<Fields> = NFS_SHARE_DEFAULTS;

const LISTS = new Set<keyof Fields>(['networks', 'hosts', 'security']);
const FIELDS = Object.keys(DEFAULTS) as (keyof Fields)[];

/** The file's value of a field in the appliance's terms (networks normalised). */
function wanted<F extends keyof Fields>(want: Want, f: F): Fields[F] {
  const v = want[f];
  return (f === 'networks' && Array.isArray(v) ? v.map(storedNetwork) : v) as Fields[F];
}

const differs = (f: keyof Fields, have: unknown, want: unknown): boolean =>
  LISTS.has(f)
    ? !sameSet(have as readonly string[], want as readonly string[])
    : JSON.stringify(have ?? null) !== JSON.stringify(want ?? null);

/** The fields the file sets, as create and update take them. */
const paramsOf = (want: Want): Partial<Fields> =>
  Object.fromEntries(FIELDS.filter((f) => want[f] !== undefined).map((f) => [f, wanted(want, f)]));

async function sharesAt(t: Transport, path: string): Promise<NfsShareEntry[]> {
  return (await queryItems(t, 'sharing.nfs.query', ['id'], [['path', '=', path]])) as NfsShareEntry[];
}

export const nfsShares: KindAdapter<'shares.nfs', NfsShareEntry> = {
  key: 'shares.nfs',
  schema: stateNfsShareSchema,
  read: async (t) => (await queryItems(t, 'sharing.nfs.query', ['id'])) as NfsShareEntry[],
  live: sharesIn,
  readOne: async (t, path) => ({ 'shares.nfs': await sharesAt(t, path) }),

  plan(want, world, ctx) {
    const have = sharesIn(world).filter((s) => s.path === want.path);
    const set = FIELDS.filter((f) => want[f] !== undefined);
    const show = (f: keyof Fields, v: unknown) => (LISTS.has(f) ? sorted(v as string[]) : v);
    if (have.length === 0)
      return stepOf(
        'shares.nfs',
        want,
        'create',
        set.map((f) => ({ field: f, from: null, to: show(f, wanted(want, f)) })),
      );
    if (have.length > 1) {
      ctx.note(
        `nfs share ${want.path}: ${have.length} shares export this path (ids ${have.map((s) => s.id).join(', ')}); left as they are`,
      );
      return null;
    }
    const s = have[0]!;
    const changes: FieldChange[] = set
      .filter((f) => differs(f, s[f], wanted(want, f)))
      .map((f) => ({ field: f, from: show(f, s[f]), to: show(f, wanted(want, f)) }));
    return stepOf('shares.nfs', want, 'update', changes);
  },

  prune: (world, named) =>
    sharesIn(world)
      .filter((s) => !named.has(s.path) && madeByStor(world.marks, 'nfs_share', s.path, s.id))
      .map((s) => s.path),

  exists: (world, path) => sharesIn(world).some((s) => s.path === path),

  async apply(t, step, { world }) {
    const { name: path, action } = step.change;
    if (action === 'create') {
      const created = await call(t, 'sharing.nfs.create', [{ path, ...paramsOf(step.want!) }]);
      await markName(t, world, 'nfs_share', path, created.id);
      return;
    }
    const found = await sharesAt(t, path);
    if (action === 'update') {
      if (found.length !== 1) throw new StorError(E.NOT_FOUND, `no one NFS share exports ${path}`);
      await call(t, 'sharing.nfs.update', [found[0]!.id, paramsOf(step.want!)]);
      return;
    }
    for (const s of found) await call(t, 'sharing.nfs.delete', [s.id]);
    await markName(t, world, 'nfs_share', path, null);
  },

  /**
   * Each share by its path and what differs from a fresh share's defaults; of a path several
   * shares export, the first (a file names a path once; the plan notes the others).
   */
  export: (world) =>
    sharesIn(world)
      .filter((s, i, all) => all.findIndex((o) => o.path === s.path) === i)
      .map((s) => ({
        path: s.path,
        ...Object.fromEntries(FIELDS.filter((f) => differs(f, s[f], DEFAULTS[f])).map((f) => [f, s[f]])),
      })),
};
