import { resolve } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { call } from '../../core/contract/client.js';
import { coreMethodsItem } from '../../core/contract/core.js';
import { StorError } from '../../core/errors.js';
import { localWriteFailed, umaskOf, writeNewFile } from '../shared/local-file.js';
import { E } from '../../core/error-catalogue.js';
import { coverMethods, type MethodGrants } from '../../core/roles/index.js';
import type { Transport } from '../../core/transport/transport.js';
import { commandTree } from '../framework/command-tree.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand, flag, list, value } from '../framework/declare.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { findingLine } from './edit.js';
import { healthOf, loadTargetRoles } from './model.js';

/** One method of `stor privilege suggest --json`. */
export interface SuggestedMethod {
  method: string;
  /** Every role the target says grants it (`core.get_methods`); empty when any logged-in user may call it. */
  granted_by_roles: string[];
  /** The role of the suggestion that grants it; null when no role is needed. */
  granted_by: string | null;
  /** The `--for` commands that call it. */
  commands: string[];
}

/** `stor privilege suggest --json` */
export interface PrivilegeSuggestion {
  /** The least role list that grants every method on this target; FULL_ADMIN alone when a method needs it. */
  roles: string[];
  /** Methods only FULL_ADMIN may call (filesystem.put, the /_upload/ endpoint; filesystem.get, downloads). */
  full_admin_only: string[];
  /** Methods any logged-in user may call. */
  no_role_needed: string[];
  methods: SuggestedMethod[];
  /** Whether a privilege with `roles` would lock its users out on this target (only when nothing else grants a method). */
  locks_out: boolean;
  /** What `privilege create` would warn of, saving these roles on this target (a self-including role the emulator expands anyway). */
  warnings: string[];
  /** Where the role catalogue came from: the target, or stor's copy of its release's. */
  catalogue: string;
}

/** The desired-state fragment `--privilege NAME` writes (the state file's format, privileges only). */
export interface PrivilegeFragment {
  stor_state: 1;
  privileges: { name: string; roles: string[]; groups: string[]; web_shell: boolean }[];
}

/** `--for "upload, dataset create"`: command names, each as its words (`dataset   create` is `dataset create`). */
export function commandNames(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((n) => n.trim().split(/\s+/).join(' '))
        .filter((n) => n !== ''),
    ),
  ];
}

/** The methods each named command declares it calls (`calls` in its defineCommand); an unknown name is a usage error listing the known. */
async function methodsOfCommands(names: readonly string[]): Promise<Map<string, string[]>> {
  const declaring = new Map<string, readonly string[]>();
  for (const [words, spec] of await commandTree()) if (spec.calls) declaring.set(words, spec.calls);
  const unknown = names.filter((n) => !declaring.has(n));
  if (unknown.length > 0) {
    throw new StorError(
      E.USAGE,
      `--for names ${unknown.length === 1 ? 'a command' : 'commands'} stor cannot answer for: ${unknown.join(', ')}`,
      {
        hint: `commands that declare the methods they call: ${[...declaring.keys()].sort().join(', ')}`,
      },
    );
  }
  const byMethod = new Map<string, string[]>();
  for (const n of names) for (const m of declaring.get(n)!) byMethod.set(m, [...(byMethod.get(m) ?? []), n]);
  return byMethod;
}

/**
 * The roles the target names for each method: one `core.get_methods(service)` per service
 * (MW/service/core_service.py:248). It lists only what this login may call, so a method it does
 * not list is unknown to this target or hidden from this login: either way nothing to judge by.
 */
async function grantsOf(t: Transport, methods: readonly string[]): Promise<MethodGrants[]> {
  const services = [...new Set(methods.map((m) => m.slice(0, m.lastIndexOf('.'))))];
  // Own names only: `constructor` or `__proto__` is in every object, and is no method of the target's.
  const listed = new Map(
    Object.entries(Object.assign({}, ...(await Promise.all(services.map((s) => call(t, 'core.get_methods', [s])))))),
  );
  const missing = methods.filter((m) => !listed.has(m));
  if (missing.length > 0) {
    throw new StorError(E.METHOD_NOT_FOUND, `the target lists no method ${missing.join(', ')}`, {
      hint: 'core.get_methods lists only what this login may call: ask as an administrator (`stor call --help` lists the methods)',
    });
  }
  return methods.map((method) => ({
    method,
    roles: coreMethodsItem().safeParse(listed.get(method)).data?.roles ?? [],
  }));
}

export interface SuggestOptions {
  methods?: string[];
  for?: string;
  privilege?: string;
  output?: string;
  force: boolean;
}

export async function privilegeSuggest(
  ctx: CommandContext,
  opts: SuggestOptions,
): Promise<CommandResult<PrivilegeSuggestion | PrivilegeFragment | string>> {
  const named = opts.methods ?? [];
  const commands = opts.for !== undefined ? commandNames(opts.for) : [];
  if (named.length === 0 && commands.length === 0)
    throw new StorError(E.USAGE, 'name the methods (--methods) or stor commands (--for) to suggest roles for', {
      hint: 'e.g. stor privilege suggest --for "upload, dataset create"',
    });
  if (opts.output !== undefined && opts.privilege === undefined)
    throw new StorError(E.USAGE, '-o writes the fragment of --privilege NAME', { hint: 'add --privilege NAME' });
  const byMethod = commands.length ? await methodsOfCommands(commands) : new Map<string, string[]>();
  for (const m of named) if (!byMethod.has(m)) byMethod.set(m, []);

  const t = await ctx.transport();
  const [grants, target] = await Promise.all([grantsOf(t, [...byMethod.keys()]), loadTargetRoles(t)]);
  const { catalogue, model } = target;
  // Where a self-including role locks its users out, it is chosen only when nothing else grants the method.
  const cover = coverMethods(catalogue, grants, (r) => model.rule !== 'none' && catalogue.isSelfIncluding(r));
  // The analysis `privilege create` makes of the same list (edit.ts checkRoles): what it would
  // refuse is locks_out, what it would save with a warning is said here too.
  const health = healthOf(target, cover.roles);
  const data: PrivilegeSuggestion = {
    roles: cover.roles,
    full_admin_only: cover.fullAdminOnly,
    no_role_needed: cover.noRoleNeeded,
    methods: grants.map((g) => ({
      method: g.method,
      granted_by_roles: [...g.roles],
      granted_by: cover.grantedBy[g.method] ?? null,
      commands: byMethod.get(g.method) ?? [],
    })),
    locks_out: health.locksOut,
    warnings: health.findings.filter((f) => !f.locks_out).map(findingLine),
    catalogue: target.source,
  };
  if (data.full_admin_only.length > 0) {
    ctx.warn(
      `only FULL_ADMIN can call ${data.full_admin_only.join(', ')} on this target${data.full_admin_only.includes('filesystem.put') ? ' (the /_upload/ endpoint authorizes a call of filesystem.put, MW/apps/file_app.py:190-200)' : ''}: no narrower role list will do`,
    );
  }
  if (data.locks_out)
    ctx.warn(
      `on ${model.name}, a privilege with ${data.roles.join(', ')} locks its users out; no other role grants what it is there for`,
    );
  if (data.warnings.length > 0) ctx.warn(`stor: warning: ${data.warnings.join('; ')}`);

  if (opts.privilege !== undefined) return fragment(ctx, data, opts);
  return recordResult(data, {
    heading: 'Least roles',
    fields: [
      ['roles', data.roles],
      ...(data.full_admin_only.length
        ? [['only FULL_ADMIN can call', data.full_admin_only] as [string, string[]]]
        : []),
      ...(data.no_role_needed.length ? [['no role needed', data.no_role_needed] as [string, string[]]] : []),
    ],
    list: {
      label: 'methods',
      items: data.methods.map(
        (m) =>
          `${m.method}: ${m.granted_by ?? 'any logged-in user'}${m.commands.length ? ` (${m.commands.join(', ')})` : ''}`,
      ),
    },
  });
}

async function fragment(
  ctx: CommandContext,
  data: PrivilegeSuggestion,
  opts: SuggestOptions,
): Promise<CommandResult<PrivilegeFragment | string>> {
  const doc: PrivilegeFragment = {
    stor_state: 1,
    privileges: [{ name: opts.privilege!, roles: data.roles, groups: [], web_shell: false }],
  };
  const yaml = toYaml(doc);
  if (opts.output === undefined)
    return ctx.globals.json ? { data: doc, view: { kind: 'json' } } : { data: yaml, view: { kind: 'text' } };
  const path = resolve(ctx.io.cwd, opts.output);
  try {
    // --force replaces the path, never writes through a link planted there (local-file.ts).
    await writeNewFile(path, yaml, umaskOf(ctx.io), { mode: 0o644, replace: opts.force === true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new StorError(E.LOCAL_FILE_EXISTS, `${path} exists`, {
        hint: 'add --force to replace it, or name another file',
      });
    throw localWriteFailed(path, err);
  }
  ctx.note(`wrote privilege ${opts.privilege} (${data.roles.join(', ')}) to ${path}`);
  return recordResult(doc, {
    fields: [
      ['privilege', opts.privilege!],
      ['roles', data.roles],
      ['file', path],
    ],
  });
}

export const privilegeSuggestCommand = defineCommand({
  summary:
    'the least roles that let an identity call these methods or run these stor commands, as this target judges them',
  effect: 'read',
  fanOut: 'read',
  options: {
    methods: list('<methods>', 'appliance methods, comma-separated (pool.dataset.create,filesystem.stat)'),
    for: value('<commands>', 'stor commands, comma-separated ("upload, dataset create")'),
    privilege: value('<name>', 'print a desired-state fragment: a privilege of this name with the roles'),
    output: value('<file>', 'with --privilege: write the fragment to this file, not standard output', { short: 'o' }),
    force: flag('with -o: replace the file if it exists'),
  },
  checkTargets: (_args, opts) => {
    if (opts.privilege !== undefined)
      throw new StorError(E.USAGE, '--privilege writes one fragment, for one target: not with --targets', {
        hint: 'compare the targets first, then run it with --profile NAME',
      });
  },
  examples: [
    'stor privilege suggest --for "dataset create"',
    'stor privilege suggest --methods pool.dataset.create,filesystem.stat',
    'stor privilege suggest --for "upload, dataset create" --json',
    'stor privilege suggest --for "snapshot create, snapshot delete" --privilege backup -o backup.yaml',
    'stor --targets @prod privilege suggest --for "dataset create"',
  ],
  notes:
    "Judged from the target: each method's roles as core.get_methods lists them, and the roles\n" +
    'privilege.roles says include others. Of the roles that grant a method, only the least are\n' +
    'candidates; the list granting the fewest roles in total wins. A method only FULL_ADMIN can\n' +
    'call (filesystem.put: uploads; filesystem.get: downloads) makes the answer FULL_ADMIN, said plainly.\n' +
    'core.get_methods lists only what the login may call: ask as an administrator.',
  run: (ctx, _args, opts) => privilegeSuggest(ctx, opts),
});
