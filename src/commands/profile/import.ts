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
import type { CommandContext } from '../shared/context.js';
import { arg, defineCommand, flag } from '../shared/declare.js';
import type { CommandResult } from '../shared/render.js';
import { readStdin } from '../shared/stdin.js';
import { isSameAppliance, readCa } from '../shared/target.js';
import { profileStore } from './store.js';
import { TAG } from './tag.js';

/** One imported profile in `stor profile import --json`; the key is never listed. */
export interface ImportedProfile {
  name: string;
  url: string;
  /** False when a profile of that name was saved before (and is now replaced). */
  created: boolean;
  tags: string[];
}

/** `stor profile import --json` */
export interface ProfileImport {
  imported: ImportedProfile[];
  config_file: string;
}

// A name --targets cannot split, expand or mistake for a tag or for `all`.
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const entrySchema = z
  .object({
    name: z.string().regex(NAME, 'letters, digits, "_", "." and "-", starting with a letter or digit').refine((n) => n !== 'all', '"all" means every profile in --targets').refine((n) => n !== EMBEDDED_PROFILE, `"${EMBEDDED_PROFILE}" names the embedded appliance`),
    url: z.string().min(1),
    key_file: z.string().min(1).optional(),
    key_stdin: z.literal(true).optional(),
    ca: z.string().min(1).optional(),
    insecure: z.boolean().optional(),
    rpc: z.enum(['ws', 'http']).optional(),
    tags: z.array(z.string().regex(TAG, 'letters, digits, "_", "." and "-", starting with a letter or digit')).optional(),
  })
  .strict()
  .refine((e) => (e.key_file === undefined) !== (e.key_stdin === undefined), 'give the key as key_file or key_stdin: true (one of them)');

type Entry = z.infer<typeof entrySchema>;

function badFile(message: string): StorError {
  return new StorError(E.BAD_PROFILE_FILE, message, { hint: 'a YAML or JSON list of {name, url, key_file | key_stdin: true, ca?, insecure?, rpc?, tags?}; nothing was saved' });
}

/** The entries of the file, checked before any key is read: YAML (JSON is YAML too). */
function readEntries(path: string): Entry[] {
  let text: string;
  try {
    text = readSmallFile(path, PROFILE_LIST_FILE).data.toString('utf8');
  } catch (err) {
    if (err instanceof StorError) throw err;
    throw badFile(`cannot read ${path}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw badFile(`${path} is not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!Array.isArray(doc)) throw badFile(`${path} does not hold a list of profiles`);
  const entries = doc.map((raw, i) => {
    const parsed = entrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
      throw badFile(`entry ${i + 1}${typeof (raw as { name?: unknown })?.name === 'string' ? ` (${(raw as { name: string }).name})` : ''}: ${where}${issue.message}`);
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

function checkedKey(key: string, entry: Entry, source: string): string {
  const trimmed = key.trim();
  if (!API_KEY_PATTERN.test(trimmed)) throw new StorError(E.MALFORMED_KEY, `the key for ${entry.name} (${source}) is not an API key: expected <id>-<64 letters and digits>`);
  return trimmed;
}

/**
 * `stor profile import FILE`: many profiles in one go, each key from its own file (relative to
 * FILE) or, for `key_stdin: true` entries, one line of standard input each, in file order. Every
 * entry is checked — key, URL, CA, clear-text rule — before one write saves them all.
 */
export async function profileImport(ctx: CommandContext, file: string, force: boolean): Promise<CommandResult<ProfileImport>> {
  const path = resolve(ctx.io.cwd, file);
  const base = dirname(path);
  const entries = readEntries(path);
  const stdinKeys = entries.some((e) => e.key_stdin) ? (await readStdin(ctx)).split('\n').map((l) => l.trim()).filter((l) => l !== '') : [];
  const wanted = entries.filter((e) => e.key_stdin).length;
  if (stdinKeys.length !== wanted) throw badFile(`${wanted} entries take their key from standard input, which holds ${stdinKeys.length} lines`);

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
      throw new StorError(E.PROFILE_EXISTS, `profile "${e.name}" is saved for ${previous.url}, not ${endpoint.display}`, {
        hint: 'rename the entry, or replace that profile with --force; nothing was saved',
      });
    }
    const tags = [...new Set(e.tags ?? [])].sort();
    profiles[e.name] = {
      url: endpoint.display,
      apiKey,
      ...(e.insecure ? { insecure: true } : {}),
      ...(caPath ? { ca: caPath } : {}),
      ...(e.rpc && e.rpc !== 'ws' ? { rpc: e.rpc } : {}),
      ...(tags.length ? { tags } : {}),
    };
    imported.push({ name: e.name, url: endpoint.display, created: !previous, tags: tags.length ? tags : (previous?.tags ?? []) });
  }
  await store.saveAll(profiles);
  return {
    data: { imported, config_file: store.path },
    view: { kind: 'table', columns: ['name', 'url', 'created', 'tags'], rows: imported.map((p) => [p.name, p.url, p.created, p.tags.join(',')]), empty: 'The file lists no profile.' },
  };
}

export const profileImportCommand = defineCommand({
  summary: 'save many profiles from a YAML or JSON list (keys from files or standard input; not checked by a login)',
  effect: 'change',
  args: { file: arg.required('YAML or JSON list of {name, url, key_file | key_stdin: true, ca, insecure, rpc, tags}', 'file') },
  options: { force: flag('replace profiles of the same name that are saved for another appliance') },
  examples: ['stor profile import fleet.yaml', 'pass show fleet-keys | stor profile import fleet.yaml', 'stor --targets @prod privilege check'],
  notes: 'Key files and CA files are found relative to FILE. Entries with key_stdin: true take one line of\nstandard input each, in the order of the file. Nothing is saved unless every entry is right.',
  run: (ctx, { file }, { force }) => profileImport(ctx, file, force),
});
