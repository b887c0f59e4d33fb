import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { type CommandResult, recordResult } from '../output/render.js';

/** `--json` of a delete with `--ignore-not-found` when there was nothing to delete. */
export interface NothingDeleted {
  /** The name, id or path given. */
  name: string;
  found: false;
  deleted: false;
}

/**
 * The lookup of what a delete names, under `--ignore-not-found`: undefined when it is NOT_FOUND
 * (and only then; any other failure, a missing role included, stays an error). Without the flag
 * the NOT_FOUND stands.
 */
export async function lookupOrNothing<T>(
  ignoreNotFound: boolean,
  lookup: () => Promise<T>,
): Promise<{ found: T } | { missing: StorError }> {
  try {
    return { found: await lookup() };
  } catch (err) {
    if (ignoreNotFound && err instanceof StorError && err.code === E.NOT_FOUND.code) return { missing: err };
    throw err;
  }
}

/** What a delete answers when `--ignore-not-found` found nothing: exit 0, and a note saying so. */
export function nothingDeleted(ctx: CommandContext, name: string, missing: StorError): CommandResult<NothingDeleted> {
  ctx.note(`stor: ${missing.message}: nothing to delete (--ignore-not-found)`);
  return recordResult(
    { name, found: false, deleted: false },
    {
      fields: [
        ['name', name],
        ['found', false],
        ['deleted', false],
      ],
    },
  );
}
