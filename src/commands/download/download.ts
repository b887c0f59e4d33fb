import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import { positiveInt } from '../shared/arg-parsers.js';
import { arg, defineCommand, flag, value } from '../shared/declare.js';
import { downloadTree } from './tree.js';

// Single files (`stor download REMOTE [LOCAL|-]`) come from the other branch of issue 14; this
// declaration carries the tree form until the two are joined.
export const downloadCommand = defineCommand({
  summary: 'download a directory tree from the appliance (-r), each file checked against its listed size',
  args: {
    remote: arg.required('the directory on the appliance, e.g. /mnt/tank/docs', 'remote-path'),
    local: arg.required('the local directory that becomes its copy (made if missing)', 'directory'),
  },
  options: {
    recursive: flag('mirror the remote directory and everything under it', { short: 'r' }),
    parallel: value('<n>', 'transfers at once (default 4)', { parse: positiveInt('--parallel'), default: 4 }),
  },
  examples: ['stor download -r /mnt/tank/www ./www-copy', 'stor download -r /mnt/tank/docs ./docs --parallel 8 --json'],
  run: (ctx, { remote, local }, { recursive, parallel }) => {
    if (!recursive) throw new StorError(E.USAGE, 'this build downloads directory trees only: give -r');
    return downloadTree(ctx, remote, local, parallel);
  },
});
