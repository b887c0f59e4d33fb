import type { KeychainCredentialEntry, KeychainType } from '../../contract/keychain.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import {
  deleteKeychainCredential,
  listKeychainCredentials,
  type KeychainCredentialRecord,
} from '../../store/keychain-credentials.js';
import { listReplications, updateReplicationData } from '../../store/replications.js';
import type { Database } from '../../store/sqlite.js';
import { isPublicKeyFile, normalizePublicKey, publicKeyOf } from './ssh-keys.js';

// KeychainCredentialService's checks and its "used by" walk (MW/plugins/keychain.py), over the
// store; the handlers (methods/keychain.ts) call these inside one write.

/** `verbose_name` of KeychainCredentialService (MW/service/base.py:36): `KeychainCredential 7 does not exist`. */
export const VERBOSE = 'KeychainCredential';

/** A stored credential as query answers it (KeychainCredentialEntry's field order). */
export const entryOf = (r: KeychainCredentialRecord): KeychainCredentialEntry =>
  ({ id: r.id, name: r.name, type: r.type, attributes: r.attributes }) as KeychainCredentialEntry;

export function findCredential(db: Database, id: number): KeychainCredentialRecord {
  const found = listKeychainCredentials(db).find((c) => c.id === id);
  if (!found) throw rpcErrors.instanceNotFound(VERBOSE, id);
  return found;
}

/** A CallError as `get_of_type` raises it: its errno and message. */
export interface CredentialLookupError {
  errno: number;
  message: string;
}

/**
 * get_of_type (MW/plugins/keychain.py:446-458, stable/26 :451-463): the credential, or the
 * CallError it raises: none of that id (ENOENT), another type (EINVAL), attributes that did not
 * decrypt (EFAULT, an empty object here).
 */
export function credentialOfType(
  db: Database,
  id: number,
  type: KeychainType,
): KeychainCredentialRecord | CredentialLookupError {
  const found = listKeychainCredentials(db).find((c) => c.id === id);
  if (!found) return { errno: ERRNO.ENOENT, message: 'Credential does not exist' };
  if (found.type !== type) return { errno: ERRNO.EINVAL, message: `Credential is not of type ${type}` };
  if (Object.keys(found.attributes).length === 0)
    return { errno: ERRNO.EFAULT, message: `Decrypting credential ${found.name} failed` };
  return found;
}

/** Python's truthiness of a JSON value. */
const truthy = (v: unknown) => v !== undefined && v !== null && v !== 0 && v !== '' && v !== false;

/**
 * SSHKeyPair.validate_and_pre_save_impl (MW/plugins/keychain.py:134-180), in its order: a private
 * key is stripped, given a final newline and read by `ssh-keygen -y` (encrypted ones refused, other
 * failures worded by ssh-keygen's stderr); a public key given must match it (first two words), one
 * left out is the derived one; then `ssh-keygen -l` must read the public key. Changes `attributes`
 * in place, as the source does.
 */
function validateKeyPair(
  add: (attr: string, msg: string) => void,
  schema: string,
  attributes: Record<string, unknown>,
) {
  const privateKey = attributes.private_key;
  if (truthy(privateKey)) {
    // `attributes["private_key"].strip()` on what another type's attributes left there (an update
    // with SSH_CREDENTIALS' shape): Python's AttributeError, answered as any uncaught exception.
    if (typeof privateKey !== 'string') {
      const type = typeof privateKey === 'number' ? 'int' : typeof privateKey === 'boolean' ? 'bool' : 'dict';
      throw rpcErrors.exception('AttributeError', `'${type}' object has no attribute 'strip'`);
    }
    attributes.private_key = `${privateKey.trim()}\n`;
    const derived = publicKeyOf(attributes.private_key as string);
    if (!('publicKey' in derived)) {
      // MW/plugins/keychain.py:153-159 (stable/26: `startswith("Enter passphrase")`, the same here).
      add(`${schema}.private_key`, 'encrypted' in derived ? 'Encrypted private keys are not allowed' : derived.stderr);
      return;
    }
    if (!('public_key' in attributes)) throw rpcErrors.exception('KeyError', "'public_key'");
    if (truthy(attributes.public_key)) {
      if (normalizePublicKey(String(attributes.public_key)) !== normalizePublicKey(derived.publicKey))
        add(`${schema}.public_key`, 'Private key and public key do not match');
    } else attributes.public_key = derived.publicKey;
  } else if (!truthy(attributes.public_key)) {
    if (!('public_key' in attributes)) throw rpcErrors.exception('KeyError', "'public_key'");
    add(`${schema}.public_key`, 'You must specify a key');
    return;
  }
  if (!isPublicKeyFile(String(attributes.public_key))) add(`${schema}.public_key`, 'Invalid public key');
}

/**
 * `_validate` (MW/plugins/keychain.py:435-443): the name unique among the others (CRUDService
 * `_ensure_unique`, MW/service/crud_service.py:261-272), checked first on its own; then the
 * type's checks (SSH_CREDENTIALS has none: its `private_key` id is not looked up).
 */
export function validateCredential(
  db: Database,
  schema: 'keychain_credential_create' | 'keychain_credentials_update',
  data: { name: string; type: string; attributes: Record<string, unknown> },
  id?: number,
): void {
  const taken = listKeychainCredentials(db).some((c) => c.name === data.name && c.id !== id);
  if (taken) throw rpcErrors.validation([[`${schema}.name`, 'Object with this name already exists', ERRNO.EINVAL]]);
  const errors: ValidationTriple[] = [];
  if (data.type === 'SSH_KEY_PAIR')
    validateKeyPair((attr, msg) => errors.push([attr, msg, ERRNO.EINVAL]), `${schema}.attributes`, data.attributes);
  if (errors.length > 0) throw rpcErrors.validation(errors);
}

/** One object that uses a credential, and how deleting with `cascade` deals with it. */
interface UsedBy {
  title: string;
  unbind_method: 'delete' | 'disable';
  /** The credential it is, when it is one (SSH credentials on a key pair): delete walks it too. */
  credential?: KeychainCredentialRecord;
  /** The replication it is, when it is one (SSH credentials a replication task uses): delete disables it. */
  replication?: number;
}

/** The type titles (SSHKeyPair.title, SSHCredentials.title: MW/plugins/keychain.py:127, 226). */
const TITLES: Record<KeychainType, string> = { SSH_KEY_PAIR: 'SSH Key Pair', SSH_CREDENTIALS: 'SSH credentials' };

/**
 * The used_by_delegates of a credential's type, as far as the emulator has their objects: a key
 * pair's SSH credentials (SSHCredentialsSSHKeyPairUsedByDelegate, MW/plugins/keychain.py:95-99,
 * titled `SSH credentials <name>`, unbound by deleting them); SSH credentials' replication tasks
 * (ReplicationTaskSSHCredentialsUsedByDelegate, :191-205: `replication.query` of
 * `ssh_credentials.id`, in id order, titled `Replication task <name>`, unbound by disabling them).
 * SFTP cloud credentials and rsync tasks are not emulated, so nothing of theirs uses a credential.
 */
function directUsers(db: Database, credential: KeychainCredentialRecord): UsedBy[] {
  if (credential.type === 'SSH_CREDENTIALS')
    return listReplications(db)
      .filter((r) => r.data.ssh_credentials === credential.id)
      .map((r) => ({ title: `Replication task ${r.data.name}`, unbind_method: 'disable' as const, replication: r.id }));
  return listKeychainCredentials(db)
    .filter((c) => c.type === 'SSH_CREDENTIALS' && c.attributes.private_key === credential.id)
    .map((c) => ({ title: `${TITLES.SSH_CREDENTIALS} ${c.name}`, unbind_method: 'delete' as const, credential: c }));
}

/** used_by (MW/plugins/keychain.py:416-433): each user, and after a credential its own users. */
export function usedBy(db: Database, id: number): { title: string; unbind_method: 'delete' | 'disable' }[] {
  const result: { title: string; unbind_method: 'delete' | 'disable' }[] = [];
  for (const user of directUsers(db, findCredential(db, id))) {
    result.push({ title: user.title, unbind_method: user.unbind_method });
    if (user.credential) result.push(...usedBy(db, user.credential.id));
  }
  return result;
}

/**
 * do_delete (MW/plugins/keychain.py:381-414): get_instance, then each user refused without
 * `cascade` or unbound (a credential deleted through keychaincredential.delete with cascade, which
 * walks its own users first; a replication task disabled, its credentials cleared), then the row.
 * Answers the ids deleted through those inner calls, in order, each of which sends its own REMOVED.
 */
export function deleteCredential(db: Database, id: number, cascade: boolean): number[] {
  const inner: number[] = [];
  for (const user of directUsers(db, findCredential(db, id))) {
    if (!cascade)
      throw rpcErrors.validationOne('options.cascade', 'This credential is used and no cascade option is specified');
    if (user.credential) {
      inner.push(...deleteCredential(db, user.credential.id, true));
      inner.push(user.credential.id);
    }
    // ReplicationTaskSSHCredentialsUsedByDelegate.unbind (:200-205): `datastore.update` of
    // repl_enabled false and repl_ssh_credentials None. No datastore event is registered for
    // storage.replication, so no replication.query event goes out.
    if (user.replication !== undefined) {
      const r = listReplications(db).find((x) => x.id === user.replication);
      if (r) updateReplicationData(db, r.id, { ...r.data, enabled: false, ssh_credentials: null });
    }
  }
  deleteKeychainCredential(db, id);
  return inner;
}
