import { Document, isScalar, parse as parseYaml, visit } from 'yaml';
import type * as z from 'zod';
import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';
import { objectsOf, STATE_PARTS, stateFileSchema, type StateFile } from './schema.js';
import { identityValue, matchForm } from './sections.js';

/** `privileges[2].roles[0]`: the path as the file's reader counts it. */
export function statePath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((k) => `${statePath([...issue.path, k])}: unknown key`).join('; ');
  // A refused key of a record (a dataset's properties): why, rather than zod's "Invalid key in record".
  if (issue.code === 'invalid_key' && issue.issues[0]) return `${statePath(issue.path)}: ${issue.issues[0].message}`;
  return `${statePath(issue.path) || '(top level)'}: ${issue.message}`;
}

/** A state file's text (YAML; JSON is YAML) as a checked StateFile; a bad one is BAD_STATE_FILE naming the path. */
export function parseStateFile(text: string, source: string): StateFile {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new StorError(E.BAD_STATE_FILE, `${source}: not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const parsed = stateFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new StorError(E.BAD_STATE_FILE, `${source}: ${parsed.error.issues.map(describe).join('; ')}`, {
      hint: '`stor export` writes a valid file; schema/stor-state.schema.json in the package describes the format',
    });
  }
  // Two objects of a section the appliance would take for one (by its identity: a share's path, an
  // SMB share's name in any case) would make the second step undo the first.
  for (const { place, identity } of STATE_PARTS) {
    const seen = new Set<string>();
    objectsOf(parsed.data, place).forEach((o, i) => {
      const value = identityValue(identity, o);
      if (seen.has(matchForm(identity, value)))
        throw new StorError(
          E.BAD_STATE_FILE,
          `${source}: ${place}[${i}].${identity.fields.join('+')}: ${JSON.stringify(value)} is named twice`,
        );
      seen.add(matchForm(identity, value));
    });
  }
  return parsed.data;
}

/** A StateFile as YAML, as `stor export` writes it. */
export function formatStateFile(state: StateFile): string {
  const doc = new Document(state);
  // Lists of names on one line (`roles: [A, B]`), as the format's examples write them.
  visit(doc, { Seq: (_key, node) => void (node.items.every((i) => isScalar(i)) && (node.flow = true)) });
  return doc.toString({ lineWidth: 0 });
}
