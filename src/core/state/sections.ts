/**
 * Where each kind of object sits in the desired-state file, read from the schema itself: a section
 * is a list of objects, at the top (`groups`) or inside an object of sections (`shares.nfs`), its
 * place written as the dotted path. How a section's objects are told apart (`name` unless its part
 * says otherwise, e.g. an NFS share by `path`; folded to lower case where the appliance compares
 * so) is declared with the part (`section()`), so parsing, planning and `--prune` read one answer
 * (docs/STATE.md "Sections").
 */
import * as z from 'zod';

/**
 * How a section's objects are matched: by which fields (one, `name` or `path`, or several that only
 * together tell two apart, a snapshot task's dataset and naming schema), and whether case is ignored.
 */
export interface Identity {
  fields: readonly string[];
  fold: boolean;
}

const BY_NAME: Identity = { fields: ['name'], fold: false };

/**
 * What joins several fields' values into the one identity a plan names (`tank/data@auto-%Y-%m-%d_%H-%M`):
 * `@`, which no dataset name holds (ZFS keeps it for snapshots) and a naming schema may not either.
 */
const IDENTITY_JOIN = '@';

// Filled as the schema's parts are defined (at load), read only after: the parts are constants.
const identities = z.registry<Identity>();

/** A section of the file: an optional list of `element`, its objects told apart by `identity` (by `name`, exactly, unless said). */
export function section<T extends z.ZodType>(element: T, identity: Partial<Identity> = {}) {
  identities.add(element, { ...BY_NAME, ...identity });
  return z.array(element).optional();
}

/** One section: its dotted place, its objects' schema, how they are matched. */
export interface Part {
  place: string;
  element: z.ZodType;
  identity: Identity;
}

const unwrapOptional = (s: z.ZodType): z.ZodType => (s instanceof z.ZodOptional ? (s.unwrap() as z.ZodType) : s);

/** Every section of a file schema, in the schema's order, nested objects walked. */
export function partsOf(schema: z.ZodObject, prefix = ''): Part[] {
  return Object.entries(schema.shape).flatMap(([key, raw]): Part[] => {
    const s = unwrapOptional(raw as z.ZodType);
    const place = `${prefix}${key}`;
    if (s instanceof z.ZodArray) {
      const element = s.element as z.ZodType;
      return [{ place, element, identity: identities.get(element) ?? BY_NAME }];
    }
    if (s instanceof z.ZodObject) return partsOf(s, `${place}.`);
    return [];
  });
}

/** The objects a file holds at a place (`shares.nfs`); none when the section, or an object on the way, is absent. */
export function objectsAt(file: object, place: string): readonly unknown[] | undefined {
  let at: unknown = file;
  for (const key of place.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return Array.isArray(at) ? at : undefined;
}

/** Puts a section's objects at their place in `file`, making the objects on the way. */
export function setObjectsAt(file: object, place: string, objects: readonly unknown[]): void {
  const keys = place.split('.');
  let at = file as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    if (at[key] === null || typeof at[key] !== 'object') at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys.at(-1)!] = objects;
}

/** An object's identity in its section: the value of its identity field (several joined by IDENTITY_JOIN). */
export const identityValue = (identity: Identity, object: unknown): string =>
  identity.fields.map((f) => String((object as Record<string, unknown>)[f])).join(IDENTITY_JOIN);

/** The form two identities are compared in (lower case where case is ignored). */
export const matchForm = (identity: Identity, value: string): string => (identity.fold ? value.toLowerCase() : value);

/** A set of identities that answers `has` as the section compares them (case ignored where it is). */
export class Identities extends Set<string> {
  constructor(
    private readonly identity: Identity,
    values: Iterable<string> = [],
  ) {
    super();
    for (const v of values) this.add(v);
  }
  override add(value: string): this {
    return super.add(matchForm(this.identity ?? BY_NAME, value));
  }
  override has(value: string): boolean {
    return super.has(matchForm(this.identity, value));
  }
}
