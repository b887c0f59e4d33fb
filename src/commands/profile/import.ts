import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { EMBEDDED_PROFILE, profileNamed, type Profile } from '../../core/config/profiles.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import { PROFILE_LIST_FILE, readSmallFile } from '../../core/config/small-file.js';
import { readKeyFile } from '../login/read-key.js';
import { API_KEY_PATTERN } from '../../core/store/secrets.js';
import { assertSecretMayTravel, parseEndpoint } from '../../core/transport/endpoint.js';
import {
  groupsFromIni,
  groupsFromYaml,
  InventoryError,
  inventoryHosts,
  type InventoryHost,
} from '../../core/config/ansible-inventory.js';
import type { CommandContext } from '../framework/context.js';
import { arg, choice, defineCommand, flag } from '../framework/declare.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { readStdin } from '../shared/stdin.js';
import { isSameAppliance, readCa } from '../framework/target.js';
import { profileStore } from './store.js';
import { TAG } from './tag.js';

/** One imported profile in `stor profile import --json`; the key is never listed. */
export interface ImportedProfile {
  name: string;
  url: string;
  /** False when a profile of that name was saved before (and is now replaced). */
  created: boolean;
  tags: string[];
  /** The key's user, when the entry names it (SCRAM key login on TrueNAS 26 names it). */
  username?: string;
}

/** `stor profile import --json` */
export interface ProfileImport {
  imported: ImportedProfile[];
  /** Hosts of an Ansible inventory left out (no stor_url); empty for stor's own list. */
  skipped: SkippedHost[];
  config_file: string;
}

// A name --targets cannot split, expand or mistake for a tag or for `all`.
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const entrySchema = z
  .object({
    name: z
      .string()
      .regex(NAME, 'letters, digits, "_", "." and "-", starting with a letter or digit')
      .refine((n) => n !== 'all', '"all" means every profile in --targets')
      .refine((n) => n !== EMBEDDED_PROFILE, `"${EMBEDDED_PROFILE}" names the embedded appliance`),
    url: z.string().min(1),
    key_file: z.string().min(1).optional(),
    key_stdin: z.literal(true).optional(),
    ca: z.string().min(1).optional(),
    insecure: z.boolean().optional(),
    rpc: z.enum(['ws', 'http']).optional(),
    // The key's user, which SCRAM key login (TrueNAS 26) names and a key string does not carry
    // (docs/REMOTE.md "SCRAM login (TrueNAS 26)"). A directory user's name need not be a local
    // one (MW/api/base/types/user.py: RemoteUsername is any non-empty string), so only emptiness
    // and control characters are refused.
    username: z
      .string()
      .trim()
      .min(1)
      .regex(/^[^\p{Cc}]+$/u, 'no control characters')
      .optional(),
    tags: z
      .array(z.string().regex(TAG, 'letters, digits, "_", "." and "-", starting with a letter or digit'))
      .optional(),
  })
  .strict()
  .refine(
    (e) => (e.key_file === undefined) !== (e.key_stdin === undefined),
    'give the key as key_file or key_stdin: true (one of them)',
  );

type Entry = z.infer<typeof entrySchema>;

function badFile(
  message: string,
  hint = 'a YAML or JSON list of {name, url, key_file | key_stdin: true, username?, ca?, insecure?, rpc?, tags?}, or an Ansible inventory (--format ansible); nothing was saved',
): StorError {
  return new StorError(E.BAD_PROFILE_FILE, message, { hint });
}

/** How FILE is read: stor's own list, or an Ansible inventory (YAML or INI). */
export type ImportFormat = 'list' | 'ansible';

/** A host of an Ansible inventory that is not imported, and why (no `stor_url`). */
export interface SkippedHost {
  name: string;
  reason: string;
}

/** Entries checked against the schema, `label` naming each in errors (`entry 3 (nas1)`, `host nas1`). */
function checkedEntries(raws: readonly unknown[], label: (raw: unknown, i: number) => string): Entry[] {
  const entries = raws.map((raw, i) => {
    const parsed = entrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
      throw badFile(`${label(raw, i)}: ${where}${issue.message}`);
    }
    return parsed.data;
  });
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.name)) throw badFile(`the name ${JSON.stringify(e.name)} appears twice`);
    seen.add(e.name);
  }
  return entries;
}

const entryLabel = (raw: unknown, i: number) =>
  `entry ${i + 1}${typeof (raw as { name?: unknown })?.name === 'string' ? ` (${(raw as { name: string }).name})` : ''}`;

/** A line that is an INI section header: `[site_a]`, `[site_a:vars]`. */
const INI_HEADER = /^\s*\[[^\]]+\]\s*$/m;

/** The entries of the file, checked before any key is read, and the inventory hosts left out. */
function readEntries(path: string, format: ImportFormat | undefined): { entries: Entry[]; skipped: SkippedHost[] } {
  let text: string;
  try {
    text = readSmallFile(path, PROFILE_LIST_FILE).data.toString('utf8');
  } catch (err) {
    if (err instanceof StorError) throw err;
    throw badFile(`cannot read ${path}: ${(err as Error).message}`);
  }
  let doc: unknown;
  let yamlError: string | undefined;
  try {
    doc = parseYaml(text);
  } catch (err) {
    yamlError = (err as Error).message.split('\n')[0];
  }
  // Unambiguous: a list is stor's format, a mapping an Ansible YAML inventory, text that YAML
  // does not read as either but has [section] lines an Ansible INI inventory.
  const mapping = isInventoryShape(doc);
  if (format !== 'ansible' && Array.isArray(doc)) return { entries: checkedEntries(doc, entryLabel), skipped: [] };
  if (format === 'list')
    throw badFile(
      yamlError !== undefined
        ? `${path} is not YAML or JSON: ${yamlError}`
        : `${path} does not hold a list of profiles`,
    );
  const anyMapping = typeof doc === 'object' && doc !== null && !Array.isArray(doc);
  if (mapping || (format === 'ansible' && anyMapping)) return fromInventory(path, text, doc as Record<string, unknown>);
  if (format === 'ansible' || INI_HEADER.test(text)) return fromInventory(path, text, undefined);
  throw badFile(
    yamlError !== undefined
      ? `${path} is not YAML or JSON, nor an Ansible INI inventory: ${yamlError}`
      : `${path} does not hold a list of profiles or an Ansible inventory`,
  );
}

/** A YAML inventory's shape: a mapping of groups, each empty or a mapping of hosts, vars and children. */
function isInventoryShape(doc: unknown): doc is Record<string, unknown> {
  const isMapping = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  return (
    isMapping(doc) &&
    Object.values(doc).every(
      (g) => g === null || (isMapping(g) && Object.keys(g).every((k) => ['hosts', 'vars', 'children'].includes(k))),
    )
  );
}

/** `true`, `"true"`, `"yes"` (INI [group:vars] values are strings) as a boolean; anything else as given. */
function booleanVar(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (/^(true|yes|on|1)$/i.test(v)) return true;
  if (/^(false|no|off|0)$/i.test(v)) return false;
  return v;
}

/**
 * Profiles from an Ansible inventory (docs/REMOTE.md "Fleets"): one per host with a `stor_url`, named as
 * the inventory names it, tagged with its groups; `stor_key_file` (relative to FILE) or
 * `stor_key_stdin: true`, and `stor_ca`, `stor_insecure`, `stor_rpc`, from the host's or its
 * groups' variables. A host without `stor_url` is not an appliance stor manages: left out, said.
 */
function fromInventory(
  path: string,
  text: string,
  yaml: Record<string, unknown> | undefined,
): { entries: Entry[]; skipped: SkippedHost[] } {
  let hosts: InventoryHost[];
  try {
    hosts = inventoryHosts(yaml ? groupsFromYaml(yaml) : groupsFromIni(text));
  } catch (err) {
    if (err instanceof InventoryError) throw badFile(`${path}: ${err.message}`, INVENTORY_HINT);
    throw err;
  }
  const skipped: SkippedHost[] = [];
  const raws: Record<string, unknown>[] = [];
  for (const { name, groups, vars } of hosts) {
    if ('stor_api_key' in vars)
      throw badFile(
        `host ${name}: stor_api_key: a key is never read from the inventory`,
        'name a file holding it (stor_key_file), or give it on standard input (stor_key_stdin: true); nothing was saved',
      );
    if (vars.stor_url === undefined) {
      skipped.push({
        name,
        reason: `no stor_url${vars.ansible_host !== undefined ? ` (ansible_host ${String(vars.ansible_host)})` : ''}`,
      });
      continue;
    }
    const stdin = booleanVar(vars.stor_key_stdin);
    const raw: Record<string, unknown> = { name, url: vars.stor_url, tags: groups };
    if (vars.stor_key_file !== undefined) raw.key_file = vars.stor_key_file;
    if (stdin !== undefined && stdin !== false) raw.key_stdin = stdin;
    if (vars.stor_ca !== undefined) raw.ca = vars.stor_ca;
    if (vars.stor_insecure !== undefined) raw.insecure = booleanVar(vars.stor_insecure);
    if (vars.stor_rpc !== undefined) raw.rpc = vars.stor_rpc;
    // The key's user: stor_user, else the user Ansible connects as; stor_user wins where both are
    // set (a key of a stor-only account on a host Ansible reaches as root).
    const user = vars.stor_user ?? vars.ansible_user;
    if (user !== undefined) raw.username = typeof user === 'number' ? String(user) : user;
    raws.push(raw);
  }
  if (raws.length === 0) throw badFile(`${path}: no host of the inventory has a stor_url`, INVENTORY_HINT);
  return { entries: checkedEntries(raws, (raw) => `host ${(raw as { name: string }).name}`), skipped };
}

const INVENTORY_HINT =
  "an Ansible inventory (YAML or INI) whose hosts, or their groups, set stor_url and stor_key_file (or stor_key_stdin: true), and for TrueNAS 26 the key's user as stor_user (else ansible_user is taken; stor_user wins); nothing was saved";

function checkedKey(key: string, entry: Entry, source: string): string {
  const trimmed = key.trim();
  if (!API_KEY_PATTERN.test(trimmed))
    throw new StorError(
      E.MALFORMED_KEY,
      `the key for ${entry.name} (${source}) is not an API key: expected <id>-<64 letters and digits>`,
    );
  return trimmed;
}

/**
 * `stor profile import FILE`: many profiles in one go, each key from its own file (relative to
 * FILE) or, for `key_stdin: true` entries, one line of standard input each, in file order. Every
 * entry is checked — key, URL, CA, clear-text rule — before one write saves them all.
 */
export async function profileImport(
  ctx: CommandContext,
  file: string,
  force: boolean,
  format?: ImportFormat,
): Promise<CommandResult<ProfileImport>> {
  const path = resolve(ctx.io.cwd, file);
  const base = dirname(path);
  const { entries, skipped } = readEntries(path, format);
  const stdinKeys = entries.some((e) => e.key_stdin)
    ? (await readStdin(ctx))
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '')
    : [];
  const wanted = entries.filter((e) => e.key_stdin).length;
  if (stdinKeys.length !== wanted)
    throw badFile(`${wanted} entries take their key from standard input, which holds ${stdinKeys.length} lines`);

  const store = profileStore(ctx);
  const before = await store.read();
  const profiles: Record<string, Profile> = {};
  const imported: ImportedProfile[] = [];
  let nextStdin = 0;
  for (const e of entries) {
    let endpoint;
    try {
      endpoint = parseEndpoint(e.url);
    } catch (err) {
      throw badFile(`entry ${e.name}: ${(err as Error).message}`);
    }
    assertSecretMayTravel(endpoint, 'an API key');
    let apiKey: string;
    if (e.key_file !== undefined) {
      const keyPath = resolve(base, e.key_file);
      apiKey = checkedKey(readKeyFile(ctx, keyPath, e.name), e, keyPath);
    } else apiKey = checkedKey(stdinKeys[nextStdin++]!, e, `line ${nextStdin} of standard input`);
    const caPath = e.ca !== undefined ? resolve(base, e.ca) : undefined;
    if (caPath) readCa(caPath);
    const previous = profileNamed(before, e.name);
    if (previous && !isSameAppliance(previous.url, endpoint) && !force) {
      throw new StorError(
        E.PROFILE_EXISTS,
        `profile "${e.name}" is saved for ${previous.url}, not ${endpoint.display}`,
        {
          hint: 'rename the entry, or replace that profile with --force; nothing was saved',
        },
      );
    }
    const tags = [...new Set(e.tags ?? [])].sort();
    profiles[e.name] = {
      url: endpoint.display,
      apiKey,
      ...(e.insecure ? { insecure: true } : {}),
      ...(caPath ? { ca: caPath } : {}),
      ...(e.rpc && e.rpc !== 'ws' ? { rpc: e.rpc } : {}),
      ...(e.username !== undefined ? { username: e.username } : {}),
      ...(tags.length ? { tags } : {}),
    };
    imported.push({
      name: e.name,
      url: endpoint.display,
      created: !previous,
      tags: tags.length ? tags : (previous?.tags ?? []),
      ...(e.username !== undefined ? { username: e.username } : {}),
    });
  }
  await store.saveAll(profiles);
  if (skipped.length > 0)
    ctx.note(
      `left out ${skipped.length} inventory host${skipped.length === 1 ? '' : 's'} without stor_url (not appliances to stor): ${skipped.map((h) => h.name).join(', ')}`,
    );
  return tableResult(
    { imported, skipped, config_file: store.path },
    {
      columns: ['name', 'url', 'created', 'tags'],
      rows: imported.map((p) => [p.name, p.url, p.created, p.tags.join(',')]),
      empty: 'The file lists no profile.',
    },
  );
}

export const profileImportCommand = defineCommand({
  summary:
    'save many profiles from a YAML or JSON list, or an Ansible inventory (keys from files or standard input; not checked by a login)',
  effect: 'change',
  args: {
    file: arg.required(
      'YAML or JSON list of {name, url, key_file | key_stdin: true, username, ca, insecure, rpc, tags}, or an Ansible inventory (YAML or INI)',
      'file',
    ),
  },
  options: {
    force: flag('replace profiles of the same name that are saved for another appliance'),
    format: choice(
      ['list', 'ansible'],
      '<format>',
      "read FILE as stor's list or an Ansible inventory (default: a list is a list, a mapping or an INI file an inventory)",
    ),
  },
  examples: [
    'stor profile import fleet.yaml',
    'pass show fleet-keys | stor profile import fleet.yaml',
    'stor profile import inventory.ini',
    'stor --targets @prod privilege check',
  ],
  notes:
    'Key files and CA files are found relative to FILE. Entries with key_stdin: true take one line of\nstandard input each, in the order of the file. Nothing is saved unless every entry is right.\n' +
    "username is the key's user, which a TrueNAS 26 key login (SCRAM) names; saved in the profile.\n\n" +
    'From an Ansible inventory: one profile per host with a stor_url, named as the inventory names it\nand tagged with its groups, so --targets @GROUP means the hosts Ansible means. Host or group\n' +
    'variables: stor_url, stor_key_file or stor_key_stdin, stor_user, stor_ca, stor_insecure, stor_rpc;\n' +
    "the key's user is stor_user, else ansible_user (stor_user wins where both are set);\n" +
    '"{{ ansible_host }}" (any variable of the host) is filled in. Hosts without stor_url are left out, said.',
  run: (ctx, { file }, { force, format }) => profileImport(ctx, file, force, format),
});
