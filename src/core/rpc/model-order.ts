import type { z } from 'zod';
import { MODEL_SCHEMAS, PYDANTIC_DICT } from '../contract/json-schema.js';
import { carryPyNumbers } from '../appliance/py-numbers.js';

/**
 * An answer's keys in its result model's field order. The middleware answers a method through its
 * result model, `model(result=result).model_dump(...)` (MW/api/base/handler/result.py:13-17 at
 * TS-25.10.1, :24-29 at TS-26.0.0-BETA.3; called for every method with a model,
 * MW/main.py:856-862 at TS-25.10.1): pydantic validates the handler's dict into the model, which
 * holds the declared fields in their declared order, and dumps them so, whatever order the
 * plugin built the dict in. A model's extra keys (`extra="allow"`) come after its fields, in the
 * order given; a `dict` or `Any` field is kept as it is. The contract's result schema declares
 * each model's fields in the model's order, so it drives the reordering here, for every method.
 *
 * An orderer returns its value itself when nothing in it moved (the usual case: no copy), else a
 * copy with its keys in order. A copy keeps the original's Python number texts (py-numbers.ts).
 */
type Orderer = (value: unknown) => unknown;

type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** What a union's branch is, to pick the branch a value takes (pydantic's smart union, roughly). */
type Shape =
  | { kind: 'object'; fields: ReadonlySet<string>; extra: boolean; order: Orderer }
  | { kind: 'array'; order: Orderer }
  | { kind: 'record'; order: Orderer }
  | { kind: 'other' };

const orderers = new WeakMap<z.ZodType, Orderer | null>();

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/** A field the model types `dict` however much of it the contract spells out: dumped as given. */
const isPlainDict = (schema: z.ZodType): boolean => MODEL_SCHEMAS.get(schema)?.jsonSchema === PYDANTIC_DICT;

/** The schema under optional, nullable, default and the like: what the value itself follows. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (isPlainDict(s)) return s;
    const def = defOf(s);
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        s = def.innerType as z.ZodType;
        break;
      case 'pipe':
        s = def.in as z.ZodType;
        break;
      case 'lazy':
        s = (def.getter as () => z.ZodType)();
        break;
      default:
        return s;
    }
  }
}

/** The orderer of `schema`, null when nothing under it has keys to order. Made once a schema. */
export function modelOrderer(schema: z.ZodType): Orderer | null {
  const known = orderers.get(schema);
  if (known !== undefined) return known;
  // A recursive schema meets itself: it orders through this forwarder until it is made.
  let made: Orderer | null = null;
  orderers.set(schema, (v) => (made ? made(v) : v));
  made = build(unwrapped(schema));
  orderers.set(schema, made);
  return made;
}

function build(schema: z.ZodType): Orderer | null {
  if (isPlainDict(schema)) return null;
  const def = defOf(schema);
  switch (def.type) {
    case 'object':
      return objectOrderer(def.shape as Record<string, z.ZodType>);
    case 'array': {
      const item = modelOrderer(def.element as z.ZodType);
      return item && ((v) => (Array.isArray(v) ? mapArray(v, item) : v));
    }
    case 'record': {
      const value = modelOrderer(def.valueType as z.ZodType);
      return value && ((v) => (isPlainObject(v) ? mapValues(v, value) : v));
    }
    case 'union':
      return unionOrderer((def.options as z.ZodType[]).flatMap(branches));
    default:
      return null;
  }
}

function objectOrderer(shape: Record<string, z.ZodType>): Orderer {
  const fields = Object.keys(shape);
  const position = new Map(fields.map((k, i) => [k, i]));
  let children: (Orderer | null)[] | undefined;
  return (v) => {
    if (!isPlainObject(v)) return v;
    children ??= fields.map((k) => modelOrderer(shape[k]!));
    let last = -1;
    let sawExtra = false;
    let inOrder = true;
    let changed: Record<string, unknown> | undefined;
    for (const key of Object.keys(v)) {
      const i = position.get(key);
      if (i === undefined) {
        sawExtra = true;
        continue;
      }
      if (sawExtra || i < last) inOrder = false;
      last = i;
      const child = children[i];
      if (child) {
        const before = v[key];
        const after = child(before);
        if (after !== before) (changed ??= {})[key] = after;
      }
    }
    if (inOrder && !changed) return v;
    const out: Record<string, unknown> = {};
    for (const key of fields)
      if (Object.prototype.hasOwnProperty.call(v, key)) out[key] = changed && key in changed ? changed[key] : v[key];
    for (const key of Object.keys(v)) if (!position.has(key)) out[key] = v[key];
    carryPyNumbers(v, out);
    return out;
  };
}

function mapArray(v: unknown[], item: Orderer): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < v.length; i++) {
    const after = item(v[i]);
    if (after !== v[i]) (out ??= v.slice())[i] = after;
  }
  if (!out) return v;
  carryPyNumbers(v, out);
  return out;
}

function mapValues(v: Record<string, unknown>, value: Orderer): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(v)) {
    const after = value(v[key]);
    if (after !== v[key]) (out ??= { ...v })[key] = after;
  }
  if (!out) return v;
  carryPyNumbers(v, out);
  return out;
}

/** A union's branches, nested unions flattened, each as the kind of value it takes. */
function branches(option: z.ZodType): Shape[] {
  const s = unwrapped(option);
  if (isPlainDict(s)) return [{ kind: 'other' }];
  const def = defOf(s);
  switch (def.type) {
    case 'union':
      return (def.options as z.ZodType[]).flatMap(branches);
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const catchall = def.catchall as z.ZodType | undefined;
      return [
        {
          kind: 'object',
          fields: new Set(Object.keys(shape)),
          extra: catchall !== undefined && defOf(catchall).type !== 'never',
          order: modelOrderer(s)!,
        },
      ];
    }
    case 'array':
    case 'record': {
      const order = modelOrderer(s);
      return order ? [{ kind: def.type, order }] : [{ kind: 'other' }];
    }
    default:
      return [{ kind: 'other' }];
  }
}

/**
 * The branch a value takes: an array the first array branch; a dictionary the model whose fields
 * hold all its keys and most of them (one that allows extra keys when none holds them all), the
 * smallest such model on a tie, else a dict branch. Anything else has no keys to order.
 */
function unionOrderer(shapes: Shape[]): Orderer | null {
  if (shapes.every((s) => s.kind === 'other')) return null;
  const arrays = shapes.filter((s) => s.kind === 'array');
  const objects = shapes.filter((s) => s.kind === 'object');
  const records = shapes.filter((s) => s.kind === 'record');
  return (v) => {
    if (Array.isArray(v)) return arrays[0] ? arrays[0].order(v) : v;
    if (!isPlainObject(v)) return v;
    const keys = Object.keys(v);
    let best: (typeof objects)[number] | undefined;
    let bestHeld = -1;
    for (const o of objects) {
      let held = 0;
      for (const k of keys) if (o.fields.has(k)) held++;
      if (held < keys.length && !o.extra) continue;
      // The model holding the most of its keys; of those, the one with the fewest fields (a share's
      // options: DefaultOpt's three keys are LegacyOpt's too, MW/api/v25_10_1/smb.py:279-305).
      if (held > bestHeld || (held === bestHeld && best && o.fields.size < best.fields.size)) {
        best = o;
        bestHeld = held;
      }
    }
    if (best) return best.order(v);
    return records[0] ? records[0].order(v) : v;
  };
}
