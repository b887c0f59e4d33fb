/**
 * SMB shares (`shares.smb`): matched by name with case ignored, as the appliance compares share
 * names ("Share names are case-insensitive and must be unique", MW/plugins/smb.py:1253-1254);
 * only the fields the file sets are compared (what a purpose sets in a share's options is never
 * one of them). Made after the datasets that hold their paths, deleted before them.
 */
import { call, queryItems } from '../../../core/contract/client.js';
import { SMB_SHARE_DEFAULTS, type SmbShareEntry } from '../../../core/contract/sharing-smb.js';
import { E } from '../../../core/error-catalogue.js';
import { foldString } from '../../../core/python-casefold.js';
import { StorError } from '../../../core/errors.js';
import { stateSmbShareSchema } from '../../../core/state/index.js';
import type { Transport } from '../../../core/transport/transport.js';
import { madeByStor } from '../ownership.js';
import type { FieldChange } from '../plan-model.js';
import { stepOf, type DesiredOf, type KindAdapter, type World } from './kind.js';
import { markName } from './mark.js';

type Want = DesiredOf<'shares.smb'>;
type Fields = Omit<Want, 'name'>;

const sharesIn = (world: World): readonly SmbShareEntry[] => world.objects['shares.smb'] as readonly SmbShareEntry[];
const same = (a: string, b: string): boolean => foldString(a) === foldString(b);

/** A fresh share's values: export leaves these out. */
const DEFAULTS: Omit<Required<Fields>, 'path'> = SMB_SHARE_DEFAULTS;

const FIELDS: (keyof Fields)[] = ['path', ...(Object.keys(DEFAULTS) as (keyof Fields)[])];

/** The fields the file sets, as create and update take them. */
const paramsOf = (want: Want): Partial<Fields> =>
  Object.fromEntries(FIELDS.filter((f) => want[f] !== undefined).map((f) => [f, want[f]]));

/** The shares of a name, in any case (the emulated query knows no `C=`: read all, a short list). */
async function sharesNamed(t: Transport, name: string): Promise<SmbShareEntry[]> {
  return ((await queryItems(t, 'sharing.smb.query', ['id'])) as SmbShareEntry[]).filter((s) => same(s.name, name));
}

export const smbShares: KindAdapter<'shares.smb', SmbShareEntry> = {
  key: 'shares.smb',
  schema: stateSmbShareSchema,
  read: async (t) => (await queryItems(t, 'sharing.smb.query', ['id'])) as SmbShareEntry[],
  live: sharesIn,
  readOne: async (t, name) => ({ 'shares.smb': await sharesNamed(t, name) }),

  plan(want, world) {
    // One at most: the appliance refuses a second of the same name in any case.
    const have = sharesIn(world).find((s) => same(s.name, want.name));
    const set = FIELDS.filter((f) => want[f] !== undefined);
    if (!have)
      return stepOf(
        'shares.smb',
        want,
        'create',
        set.map((f) => ({ field: f, from: null, to: want[f] })),
      );
    const changes: FieldChange[] = set
      .filter((f) => have[f] !== want[f])
      .map((f) => ({ field: f, from: have[f], to: want[f] }));
    return stepOf('shares.smb', want, 'update', changes);
  },

  prune: (world, named) =>
    sharesIn(world)
      .filter((s) => !named.has(s.name) && madeByStor(world.marks, 'smb_share', s.name, s.id))
      .map((s) => s.name),

  exists: (world, name) => sharesIn(world).some((s) => same(s.name, name)),

  async apply(t, step, { world }) {
    const { name, action } = step.change;
    if (action === 'create') {
      const created = await call(t, 'sharing.smb.create', [{ name, ...paramsOf(step.want!), path: step.want!.path }]);
      await markName(t, world, 'smb_share', name, created.id);
      return;
    }
    const [found] = await sharesNamed(t, name);
    if (action === 'update') {
      if (!found) throw new StorError(E.NOT_FOUND, `no SMB share named ${JSON.stringify(name)}`);
      await call(t, 'sharing.smb.update', [found.id, paramsOf(step.want!)]);
      return;
    }
    if (found) await call(t, 'sharing.smb.delete', [found.id]);
    await markName(t, world, 'smb_share', found?.name ?? name, null);
  },

  /** Each share by its name and path, and what differs from a fresh share's defaults. */
  export: (world) =>
    sharesIn(world).map((s) => ({
      name: s.name,
      path: s.path,
      ...Object.fromEntries(
        (Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]).filter((f) => s[f] !== DEFAULTS[f]).map((f) => [f, s[f]]),
      ),
    })),
};
