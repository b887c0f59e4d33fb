import { readAdminKeyBinding, writeAdminKeyBinding } from '../../store/admin-key-binding.js';
import { findApiKey } from '../../store/api-keys.js';
import { BUSY_TIMEOUT_MS } from '../../store/store.js';
import type { Appliance } from '../appliance.js';
import { admitProvenKey, parseApiKey, type LoginOutcome } from './login.js';
import type { Session } from './session.js';

/**
 * How the embedded appliance admits the process that opened it with its own administrator key
 * file, and why that needs no second scrypt of the key.
 *
 * 25.10.1 trusts its local socket by who the peer process is, not by a secret it sends: a
 * `ws+unix` connection's origin is the peer's pid, uid and gid read with SO_PEERCRED
 * (MW/utils/origin.py:52-64); a Unix-socket connection is always let through the allowlist
 * (MW/api/base/server/ws_handler/base.py:46); on connect, `check_permission` logs it in as that
 * uid's account with no password or key at all — PAM's account checks, then the privilege composed
 * for the user (`auth.authenticate_user`), else no session (MW/plugins/auth.py:1302-1339, reached
 * from MW/api/base/server/ws_handler/rpc.py:216; the credential is UnixSocketSessionManagerCredentials,
 * MW/auth.py:162). What proves identity there is the kernel's word about the peer.
 *
 * Here the peer is this process, and what it proves is that it could read `<state>/admin.key`
 * (0600, in the 0700 state directory, both put back to owner-only on every open: store.ts). That
 * same reader can open `<state>/stor.db` and change any row, so scrypt-checking the secret it read
 * proves nothing the read did not. What must still be checked is everything else a login checks,
 * so the file grants no more than the key in it would over the network: the key exists, is still
 * the key the file was written for (a reset gives a new secret and a new hash), is unrevoked and
 * unexpired, and its user is unlocked and holds a privilege that composes (admitProvenKey, the
 * same code as the network login after its hash). And the file must still be that key's file: the
 * state remembers the key's id, its stored hash and the file's identity (store/admin-key-binding.ts),
 * written by the seed that wrote the file, or after the file's secret was checked against the hash
 * the slow way. A file replaced, rewritten or copied elsewhere, or a key reset, takes the real login.
 *
 * Only EmbeddedTransport calls this, for the file it read itself: it is no method of the dispatcher,
 * so neither `stor serve` nor any login over the network can reach it; a key given any other way
 * (STOR_API_KEY, a profile) is always checked against its hash. Keys stay salted slow hashes at
 * rest; nothing derived from a secret is stored.
 *
 * Returns null when the file is not known as the key's own (the caller then logs in the slow way),
 * else the outcome the network login would have had once its hash matched.
 */
export function loginWithOwnKeyFile(
  appliance: Appliance,
  session: Session,
  key: string,
  fileIdentity: string,
): LoginOutcome | null {
  const parsed = parseApiKey(key);
  if (!parsed) return null;
  const { store } = appliance;
  const { binding, current } = store.read(() => ({
    binding: readAdminKeyBinding(store.db),
    current: findApiKey(store.db, parsed.id),
  }));
  if (!binding || binding.keyId !== parsed.id || binding.file !== fileIdentity) return null;
  // Deleted, or reset since the file was written: the file's secret is no longer that hash's.
  if (!current || current.key_hash !== binding.keyHash) return null;
  return admitProvenKey(appliance, session, binding.keyId, binding.keyHash);
}

/**
 * After the file's key passed the real login (its secret matched the stored hash), remembers the
 * file as that key's, so the next command need not hash it again. The binding is a cache: failing
 * to write it (a busy or read-only state) costs only the next command's hash.
 */
export function rememberOwnKeyFile(appliance: Appliance, session: Session, fileIdentity: string): void {
  const key = session.credentials?.apiKey;
  if (!key) return;
  const { store } = appliance;
  // A cache must never make a command wait: another process's write lock is a reason to skip it.
  store.db.pragma('busy_timeout = 0');
  try {
    store.write(() => {
      const now = readAdminKeyBinding(store.db);
      if (now?.keyId === key.id && now.keyHash === key.keyHash && now.file === fileIdentity) return;
      writeAdminKeyBinding(store.db, { keyId: key.id, keyHash: key.keyHash, file: fileIdentity });
    });
  } catch {
    // Not remembered: the next command checks the file's key against its hash again.
  } finally {
    store.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}
