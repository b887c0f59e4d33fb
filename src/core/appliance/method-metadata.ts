import * as z from 'zod';
import type { MethodContract } from '../contract/method.js';
import type { Session } from './session/session.js';
import type { RoleCatalogue } from '../roles/index.js';

/** What `core.get_methods` says of one method (MW/service/core_service.py:355-377). */
export interface MethodMetadata {
  description: string;
  cli_description: string;
  examples: Record<string, string[]>;
  item_method: boolean;
  no_auth_required: boolean;
  filterable: boolean;
  filterable_schema: null;
  job: boolean;
  downloadable: boolean;
  uploadable: boolean;
  check_pipes: boolean;
  roles: string[];
  accepts: unknown[] | null;
  returns: unknown[] | null;
}

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
  for (let changed = true; changed; ) {
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

/**
 * A schema as `get_json_schema` lays it out (MW/api/base/jsonschema.py): one JSON schema per
 * argument, titled with its name. Null when zod cannot express one.
 */
function jsonSchemas(entries: readonly { name: string; schema: z.ZodType; required: boolean }[], io: 'input' | 'output'): unknown[] | null {
  try {
    return entries.map(({ name, schema, required }) => {
      const { $schema: _, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
      return { ...json, title: name, _name_: name, _required_: required };
    });
  } catch {
    return null;
  }
}

function metadataOf(def: MethodContract, catalogue: RoleCatalogue, crud: boolean): MethodMetadata {
  const verb = def.name.slice(def.name.lastIndexOf('.') + 1);
  const uploadable = def.name === 'filesystem.put';
  return {
    description: def.summary,
    cli_description: cliDescription(def.summary),
    examples: {},
    item_method: crud && (verb === 'update' || verb === 'delete'),
    no_auth_required: def.access.kind === 'public',
    filterable: def.params.length === 2 && def.params[0]!.name === 'filters' && def.params[1]!.name === 'options',
    filterable_schema: null,
    // filesystem.put is a job with an input pipe on 25.10.1; here only /_upload/ starts it.
    // filesystem.get is one with an output pipe, which only core.download starts here; served as
    // no job (methods/filesystem.ts), it has always been listed as none.
    job: (def.job === true && def.name !== 'filesystem.get') || uploadable,
    downloadable: false,
    uploadable,
    check_pipes: uploadable,
    roles: rolesFor(def, catalogue),
    accepts: jsonSchemas(
      def.params.map((p) => ({ name: p.name, schema: p.schema, required: p.default === undefined })),
      'input',
    ),
    returns: def.result ? jsonSchemas([{ name: 'result', schema: def.result, required: true }], 'output') : null,
  };
}

/**
 * `core.get_methods(service, target)` over the contract (MW/service/core_service.py:248-380):
 * every method the session may call, optionally of one service. The CLI target leaves out the
 * `core` service, which 25.10.1 marks `cli_private`.
 */
export function methodMetadata(
  methods: ReadonlyMap<string, MethodContract>,
  catalogue: RoleCatalogue,
  session: Session,
  service: string | null,
  target: 'WS' | 'CLI' | 'REST',
): Record<string, MethodMetadata> {
  const crudServices = new Set([...methods.keys()].filter((n) => n.endsWith('.get_instance')).map(serviceOf));
  const out: Record<string, MethodMetadata> = {};
  for (const def of methods.values()) {
    const svc = serviceOf(def.name);
    if (service !== null && svc !== service) continue;
    if (target === 'CLI' && svc === 'core') continue;
    if (def.access.kind === 'roles' && !session.holdsAny(def.access.roles)) continue;
    out[def.name] = metadataOf(def, catalogue, crudServices.has(svc));
  }
  return out;
}
