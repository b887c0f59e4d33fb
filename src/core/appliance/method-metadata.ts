import * as z from 'zod';
import type { MethodContract } from '../contract/method.js';
import type { Session } from './session/session.js';
import type { RoleCatalogue } from '../roles/index.js';
import type { Release } from '../releases/index.js';
import { MODEL_SCHEMAS } from '../contract/json-schema.js';

/** What `core.get_methods` says of one method on 25.10, in its order (TS-25.10.1 MW/service/core_service.py:364-380). */
export interface MethodMetadata {
  description: string;
  cli_description: string;
  examples: Record<string, string[]>;
  item_method: boolean;
  no_auth_required: boolean;
  filterable: boolean;
  filterable_schema: null;
  pass_application: boolean;
  require_websocket: boolean;
  job: boolean;
  downloadable: boolean;
  uploadable: boolean;
  check_pipes: boolean | [];
  roles: string[];
  accepts: unknown[] | null;
  returns: unknown[] | null;
}

/**
 * The same on 26.0, in its order (stable/26 MW/service/core_service.py:362-378): built once for the
 * methods cache, it has no `item_method` nor `require_websocket`, and says `no_authz_required` and
 * `cli_private`.
 */
export type MethodMetadata26 = Omit<MethodMetadata, 'item_method' | 'require_websocket'> & {
  no_authz_required: boolean;
  cli_private: boolean;
};

/**
 * The appliance cuts its docstrings at the first period; a summary is one line already (and may
 * say "e.g."), so only its closing period goes.
 */
const cliDescription = (summary: string) => summary.replace(/\.$/, '');

const serviceOf = (name: string) => name.slice(0, name.lastIndexOf('.'));

/**
 * `roles_for_method` (MW/role.py:302-318, 383-384): the method's own roles and every role that
 * includes one of them, directly or through others, sorted. No roles for a method that needs
 * none; FULL_ADMIN alone for one that only a full administrator may call.
 */
function rolesFor(def: MethodContract, catalogue: RoleCatalogue): string[] {
  if (def.access.kind !== 'roles') return [];
  const roles = new Set(def.access.roles.length > 0 ? def.access.roles : ['FULL_ADMIN']);
  for (let changed = true; changed;) {
    changed = false;
    for (const name of catalogue.names) {
      if (!roles.has(name) && (catalogue.get(name)?.includes ?? []).some((r) => roles.has(r))) {
        roles.add(name);
        changed = true;
      }
    }
  }
  return [...roles].sort();
}

type Json = unknown;

/**
 * zod's JSON schema brought to pydantic's: a schema the contract marks with its model's JSON
 * schema (datetimes, `dict` fields: contract/json-schema.ts) is that; pydantic's `int` has no
 * bounds where zod's `z.int()` says the safe-integer range; a fixed tuple has no `items: false`
 * (pydantic lists `prefixItems` and the lengths only).
 */
function pydanticShape(ctx: { zodSchema: z.core.$ZodType; jsonSchema: Record<string, unknown> }): void {
  const json = ctx.jsonSchema;
  const modeled = MODEL_SCHEMAS.get(ctx.zodSchema as z.ZodType);
  if (modeled) {
    for (const key of Object.keys(json)) delete json[key];
    Object.assign(json, structuredClone(modeled.jsonSchema));
    return;
  }
  // A model with `extra="allow"` (a zod object with an unknown catchall): pydantic says `true`, zod `{}`.
  const def = (ctx.zodSchema as z.ZodType)._zod.def as { type: string; catchall?: z.ZodType };
  if (def.type === 'object' && def.catchall?._zod.def.type === 'unknown') json.additionalProperties = true;
  if (json.type === 'integer') {
    if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
    if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
  }
  if (json.type === 'array' && Array.isArray(json.prefixItems) && json.items === false) delete json.items;
}

/** `replace_refs` (MW/api/base/jsonschema.py:18-34): every `$ref` replaced by its definition. */
function replaceRefs(data: Json, defs?: Record<string, Json>): Json {
  if (Array.isArray(data)) return data.map((v) => replaceRefs(v, defs));
  if (data === null || typeof data !== 'object') return data;
  let { $defs, $ref, ...rest } = data as Record<string, Json>;
  defs = ($defs as Record<string, Json> | undefined) ?? defs;
  if (typeof $ref === 'string')
    rest = { ...(defs![$ref.replace(/^#\/\$defs\//, '')] as Record<string, Json>), ...rest };
  else if ($ref !== undefined) rest.$ref = $ref;
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, replaceRefs(v, defs)]));
}

/**
 * `add_attrs` (MW/api/base/jsonschema.py:37-62): an object lists its properties' names in
 * `_attrs_order_`, each property is titled with its name and says `_name_` and `_required_`; an
 * array's `items` is wrapped in a list. Applied all the way down.
 */
function addAttrs(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(addAttrs);
  if (schema === null || typeof schema !== 'object') return schema;
  let s = schema as Record<string, Json>;
  const props = s.properties;
  if (s.type === 'object' && props !== null && typeof props === 'object' && !Array.isArray(props)) {
    const required = Array.isArray(s.required) ? s.required : [];
    s = {
      ...s,
      _attrs_order_: Object.keys(props),
      properties: Object.fromEntries(
        Object.entries(props as Record<string, Json>).map(([k, v]) => [
          k,
          { ...(v as object), title: k, _name_: k, _required_: required.includes(k) },
        ]),
      ),
    };
  }
  if (s.type === 'array' && 'items' in s && !Array.isArray(s.items)) s = { ...s, items: [s.items] };
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, addAttrs(v)]));
}

/**
 * `get_json_schema` (MW/api/base/jsonschema.py:10-15): the JSON schema of the Args (or Result)
 * model, its refs replaced and attributes added, then one schema per field. pydantic's
 * `model_json_schema()` is in validation mode for both (a field with a default is not required),
 * hence zod's `input` side for the result too. Null when zod cannot express one.
 */
function jsonSchemas(
  fields: readonly { name: string; schema: z.ZodType; default?: () => unknown; factory?: true }[],
): unknown[] | null {
  try {
    const properties: Record<string, Json> = {};
    for (const { name, schema, default: given, factory } of fields) {
      const fallback = factory ? undefined : given;
      const { $schema: _, ...json } = z.toJSONSchema(schema, {
        io: 'input',
        unrepresentable: 'any',
        override: pydanticShape,
      });
      // A field with a default says it, as pydantic does; a default JSON cannot hold says nothing.
      properties[name] = fallback === undefined ? json : { ...json, ...defaultOf(fallback) };
    }
    const model = {
      type: 'object',
      properties,
      required: fields.filter((f) => f.default === undefined).map((f) => f.name),
    };
    const done = addAttrs(replaceRefs(model)) as { properties: Record<string, Json> };
    return fields.map(({ name }) => done.properties[name]);
  } catch {
    return null;
  }
}

function defaultOf(fallback: () => unknown): { default?: unknown } {
  try {
    const value: unknown = fallback();
    return JSON.stringify(value) === undefined ? {} : { default: JSON.parse(JSON.stringify(value)) as unknown };
  } catch {
    return {};
  }
}

function metadataOf(def: MethodContract, catalogue: RoleCatalogue, crud: boolean): MethodMetadata {
  const verb = def.name.slice(def.name.lastIndexOf('.') + 1);
  // filesystem.get and filesystem.put are jobs with a pipe on 25.10.1, listed so here too; the
  // emulator answers a plain call of either with the pipe's refusal (methods/filesystem.ts) and
  // starts their jobs through core.download and /_upload/.
  const job = def.job === true;
  return {
    description: def.summary,
    cli_description: cliDescription(def.summary),
    examples: {},
    item_method: crud && (verb === 'update' || verb === 'delete'),
    no_auth_required: def.access.kind === 'public',
    filterable: def.params.length === 2 && def.params[0]!.name === 'filters' && def.params[1]!.name === 'options',
    filterable_schema: null,
    pass_application: def.app !== undefined,
    require_websocket: def.app === 'ws',
    job,
    downloadable: job && def.pipe === 'output',
    uploadable: job && def.pipe === 'input',
    // `hasattr(method, '_job') and method._job['pipes'] and method._job['check_pipes']`
    // (MW/service/core_service.py:377): a job without pipes leaves its empty list of pipes.
    check_pipes: job ? (def.pipe !== undefined ? true : []) : false,
    roles: rolesFor(def, catalogue),
    accepts: jsonSchemas(def.params),
    returns: jsonSchemas([{ name: 'result', schema: def.result }]),
  };
}

/**
 * 26.0's entry from 25.10's: `no_authz_required` for a method with authorization_required=False
 * (MW/api/base/decorator.py:239-243, the contract's AUTHENTICATED), `cli_private` from its decorator.
 */
function metadata26Of(m: MethodMetadata, def: MethodContract, cliPrivate: boolean): MethodMetadata26 {
  const { description, cli_description, examples, no_auth_required, ...rest } = m;
  const { filterable, filterable_schema, pass_application, job, downloadable, uploadable, check_pipes } = rest;
  return {
    description,
    cli_description,
    examples,
    no_auth_required,
    no_authz_required: def.access.kind === 'authenticated',
    cli_private: cliPrivate,
    filterable,
    filterable_schema,
    pass_application,
    job,
    downloadable,
    uploadable,
    check_pipes,
    roles: rest.roles,
    accepts: rest.accepts,
    returns: rest.returns,
  };
}

/**
 * `core.get_methods(service, target)` over the contract (MW/service/core_service.py:248-380):
 * every method the session may call, optionally of one service, each in its release's keys. The
 * CLI target leaves out the `core` service, which 25.10.1 marks `cli_private`, and the methods
 * marked so (`release.cliPrivateMethods`).
 */
export function methodMetadata(
  methods: ReadonlyMap<string, MethodContract>,
  catalogue: RoleCatalogue,
  session: Session,
  service: string | null,
  target: 'WS' | 'CLI' | 'REST',
  release: Pick<Release, 'getMethodsEntry' | 'cliPrivateMethods'>,
): Record<string, MethodMetadata | MethodMetadata26> {
  const crudServices = new Set([...methods.keys()].filter((n) => n.endsWith('.get_instance')).map(serviceOf));
  const cliPrivate = new Set(release.cliPrivateMethods);
  const out: Record<string, MethodMetadata | MethodMetadata26> = {};
  for (const def of methods.values()) {
    const svc = serviceOf(def.name);
    if (service !== null && svc !== service) continue;
    if (target === 'CLI' && (svc === 'core' || cliPrivate.has(def.name))) continue;
    if (def.access.kind === 'roles' && !session.holdsAny(def.access.roles)) continue;
    const entry = metadataOf(def, catalogue, crudServices.has(svc));
    out[def.name] = release.getMethodsEntry === '26.0' ? metadata26Of(entry, def, cliPrivate.has(def.name)) : entry;
  }
  return out;
}
