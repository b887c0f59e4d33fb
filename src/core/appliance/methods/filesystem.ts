import { filesystemContract } from '../../contract/filesystem.js';
import { rpcErrors } from '../../errors.js';
import { makeDirectory } from '../files/mkdir.js';
import { changeOwner, setPermissions } from '../files/perm.js';
import { listdirEntries, statEntry } from '../files/stat.js';
import { statfsOf } from '../files/statfs.js';
import { implement, withJob } from '../method.js';
import { query } from '../query/index.js';

// The handlers of contract/filesystem.ts (`MW/plugins/filesystem.py`); the work is in files/.

/** `ValueError("Pipe %r is not open" % pipe)`: its text, and its repr as Python quotes a string holding `'`. */
const pipeNotOpen = (pipe: 'input' | 'output') =>
  rpcErrors.exception('ValueError', `Pipe '${pipe}' is not open`, `ValueError("Pipe '${pipe}' is not open")`);

export const filesystemMethods = [
  implement(filesystemContract['filesystem.stat'], ({ appliance }, path) => statEntry(appliance, path)),
  implement(filesystemContract['filesystem.listdir'], ({ appliance }, path, filters, options) =>
    query(listdirEntries(appliance, path), filters, options),
  ),
  implement(filesystemContract['filesystem.statfs'], ({ appliance }, path) => statfsOf(appliance, path)),
  implement(filesystemContract['filesystem.mkdir'], ({ appliance }, data) => makeDirectory(appliance, data)),
  implement(filesystemContract['filesystem.setperm'], ({ appliance, job }, data) =>
    setPermissions(appliance, job!, data),
  ),
  implement(filesystemContract['filesystem.chown'], ({ appliance, job }, data) => changeOwner(appliance, job!, data)),
  // A job whose pipe the caller did not open: `Job.check_pipe` raises ValueError before any job
  // exists (MW/job.py:330-332, 370-376), answered as any exception (MW/api/base/server/ws_handler/rpc.py:378-391).
  // The pipes exist only when core.download (jobs/core-download.ts) or the upload endpoint (jobs/upload.ts) start the job.
  implement(withJob(filesystemContract['filesystem.get'], false), () => {
    throw pipeNotOpen('output');
  }),
  implement(withJob(filesystemContract['filesystem.put'], false), () => {
    throw pipeNotOpen('input');
  }),
];
