import { generateKeyPairSync } from 'node:crypto';
import { openSync, readFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { publicBlobOf, sshPrivateKey, type SshSigningKey } from '../keychain/ssh-sign.js';

/**
 * The emulated appliance's SSH host key, as sshd keeps /etc/ssh/ssh_host_ed25519_key: made once in
 * the state directory (0600, PKCS#8 PEM), what a keychaincredential's `remote_host_key` names and a
 * replication to this server checks (docs/REPLICATION.md).
 */
export const HOST_KEY_FILE = 'ssh_host_ed25519_key';

export interface HostKey {
  readonly key: SshSigningKey;
  /** `ssh-ed25519 BASE64`, as ssh-keyscan prints it (without the host). */
  readonly publicLine: string;
}

export function hostKeyOf(stateDir: string): HostKey {
  const path = join(stateDir, HOST_KEY_FILE);
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    // `wx`: two servers on one state directory never overwrite each other's key.
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, pem);
      } finally {
        closeSync(fd);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      pem = readFileSync(path, 'utf8');
    }
  }
  const key = sshPrivateKey(pem);
  return { key, publicLine: `${key.type} ${publicBlobOf(key).toString('base64')}` };
}
