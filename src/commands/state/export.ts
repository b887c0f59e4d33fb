import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { formatStateFile, type StateFile, type StateKind } from '../../core/state/index.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand, list } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { exportState } from './export-state.js';
import { STATE_KINDS } from './kinds/index.js';
import { readWorld } from './world.js';

/**
 * The sections `--only` names by `word`: a section's place (`groups`, `api-keys`, `shares.nfs`), or
 * the object holding nested sections (`shares`: each section inside it).
 */
export function sectionsNamed(word: string): StateKind[] {
  const place = word.replaceAll('-', '_');
  return STATE_KINDS.filter((k) => k === place || k.startsWith(`${place}.`));
}

/** What `--only` takes: every section's place, and each object of nested sections by its own name. */
const onlyChoices = (): string[] => [
  ...new Set(STATE_KINDS.flatMap((k) => (k.includes('.') ? [k.split('.')[0]!, k] : [k]))),
];

/** `stor export [--only KINDS]`: YAML on stdout; with `--json`, the same StateFile as JSON. */
export async function stateExport(
  ctx: CommandContext,
  only: string[] | undefined,
): Promise<CommandResult<StateFile | string>> {
  const kinds = new Set<StateKind>();
  for (const k of only ?? STATE_KINDS) {
    const chosen = sectionsNamed(k);
    if (chosen.length === 0) {
      throw new StorError(E.USAGE, `--only: ${JSON.stringify(k)} is not a section`, {
        hint: `one or more of ${onlyChoices().join(',')}`,
      });
    }
    for (const kind of chosen) kinds.add(kind);
  }
  const t = await ctx.transport();
  const state = exportState(await readWorld(t), kinds);
  if (ctx.globals.json) return { data: state, view: { kind: 'json' } };
  return { data: formatStateFile(state), view: { kind: 'text' } };
}

export const stateExportCommand = defineCommand({
  summary:
    "write the target's groups, users, privileges, datasets, NFS and SMB shares and API keys as a desired-state file (built-ins left out)",
  effect: 'read',
  options: { only: list('<sections>', `only these sections, comma-separated: ${onlyChoices().join(',')}`) },
  examples: ['stor export > state.yaml', 'stor export --only privileges,groups'],
  notes: "Never a password or an API key's secret. Applying the file to the same target plans no change.",
  run: (ctx, _args, opts) => stateExport(ctx, opts.only),
});
