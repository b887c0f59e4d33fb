import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { arg, defineCommand } from '../framework/declare.js';

/**
 * `stor rm PATH…`: 25.10.1's API has no way to delete a file or directory (`filesystem.*` has
 * no unlink or rmdir), and stor does not invent one; it says what the appliance does offer.
 */
export function rm(paths: string[]): never {
  const path = paths[0] ?? 'PATH';
  throw new StorError(
    E.NO_FILE_DELETE,
    `the appliance's API (25.10.1) has no way to delete files or directories, so stor cannot remove ${paths.join(' ')}`,
    {
      hint:
        `if ${path} is a dataset, \`stor dataset delete ${path}\` deletes it with its files (\`--dry-run\` first); ` +
        'to empty a file, upload an empty one over it (`: > empty && stor upload empty ' +
        path +
        '`); ' +
        'otherwise use the web UI or a shell on the appliance',
    },
  );
}

export const rmCommand = defineCommand({
  summary: 'explains how to delete files: the appliance API has no file delete',
  effect: 'change',
  args: { paths: arg.variadic('paths on the appliance', true, 'remote-path') },
  examples: [
    'stor rm /mnt/tank/docs/old.pdf   # exit 2, with what the appliance offers instead',
    'stor dataset delete tank/scratch --dry-run',
  ],
  run: (_ctx, { paths }) => rm(paths),
});
