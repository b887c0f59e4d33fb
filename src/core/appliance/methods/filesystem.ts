import { filesystemContract } from '../../contract/filesystem.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { makeDirectory } from '../files/mkdir.js';
import { changeOwner, setPermissions } from '../files/perm.js';
import { listdirEntries, statEntry } from '../files/stat.js';
import { statfsOf } from '../files/statfs.js';
import { implement, withJob } from '../method.js';
import { query } from '../query/index.js';

// The handlers of contract/filesystem.ts (`MW/plugins/filesystem.py`); the work is in files/.

export const filesystemMethods = [
  implement(filesystemContract['filesystem.stat'], ({ appliance }, path) => statEntry(appliance, path)),
  implement(filesystemContract['filesystem.listdir'], ({ appliance }, path, filters, options) => query(listdirEntries(appliance, path), filters, options)),
  implement(filesystemContract['filesystem.statfs'], ({ appliance }, path) => statfsOf(appliance, path)),
  implement(filesystemContract['filesystem.mkdir'], ({ appliance }, data) => makeDirectory(appliance, data)),
  implement(filesystemContract['filesystem.setperm'], ({ appliance, job }, data) => setPermissions(appliance, job!, data)),
  implement(filesystemContract['filesystem.chown'], ({ appliance, job }, data) => changeOwner(appliance, job!, data)),
  // As for put below: the output pipe only exists when core.download starts the job (jobs/core-download.ts).
  implement(withJob(filesystemContract['filesystem.get'], false), () => {
    throw rpcErrors.call(
      ERRNO.EINVAL,
      "Pipe 'output' is not open: filesystem.get writes the file's bytes, which a JSON-RPC answer cannot carry. " +
        'Download through core.download("filesystem.get", [path], filename) and GET the URL it answers (or run `stor download`).',
    );
  }),
  // The input pipe is checked when the job would be created (MW/job.py, `pipes=["input"]`): a
  // JSON-RPC call has none, so it fails before any job exists — hence no job here. Uploads start
  // the job themselves (jobs/upload.ts).
  implement(withJob(filesystemContract['filesystem.put'], false), () => {
    throw rpcErrors.call(
      ERRNO.EINVAL,
      "Pipe 'input' is not open: filesystem.put takes the file's bytes, which a JSON-RPC call cannot carry. " +
        "Upload through the upload endpoint instead: POST {base_url}/_upload/ as multipart, a 'data' part " +
        '{"method": "filesystem.put", "params": [path, {"mode": …}]} then a \'file\' part (or run `stor upload`).',
    );
  }),
];
