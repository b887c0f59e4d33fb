import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { Transport } from '../../core/transport/transport.js';
import { targetEmulation } from '../shared/emulation.js';

/**
 * A 403 from the upload endpoint, explained by the gate *this* target applies (docs/COMMANDS.md "Uploads"): the
 * emulator says which it was started with; a real 25.10.1 authorizes the upload as a call of
 * `filesystem.put`, whose only role is FULL_ADMIN (MW/apps/file_app.py:190-200,
 * MW/plugins/filesystem.py:550-551).
 */
export async function explainForbidden(t: Transport, err: StorError): Promise<StorError> {
  const emulation = await targetEmulation(t).catch(() => null);
  const gate = emulation?.settings.uploadGate;
  const hint =
    gate === 'sys-admin'
      ? 'this emulator applies the gate the 25.10.1 reports describe: only accounts with the SYS_ADMIN attribute ' +
        '(members of builtin_administrators) may upload; FILESYSTEM_DATA_WRITE or other filesystem roles alone do not pass it. Upload with an administrator key, ' +
        'or start `stor serve` with --upload-gate role to rehearse the declared intent'
      : gate === 'role'
        ? 'this emulator admits holders of FILESYSTEM_DATA_WRITE; the identity you upload with lacks it'
        : 'TrueNAS 25.10.1 authorizes an upload as a call of filesystem.put, whose only role is FULL_ADMIN: ' +
          'FILESYSTEM_DATA_WRITE and the other filesystem roles do not pass it. Upload with the key of a user ' +
          'whose privilege grants FULL_ADMIN';
  return new StorError(E.UPLOAD_FORBIDDEN, err.message, { hint, cause: err });
}
