import { hostname } from 'node:os';
import { SECRET_PLACEHOLDER } from '../../contract/accounts-common.js';
import { keychainContract, type KeychainCredentialEntry } from '../../contract/keychain.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import {
  insertKeychainCredential,
  listKeychainCredentials,
  updateKeychainCredential,
} from '../../store/keychain-credentials.js';
import type { Appliance } from '../appliance.js';
import { publishEvent } from '../crud-events.js';
import {
  deleteCredential,
  entryOf,
  findCredential,
  usedBy,
  validateCredential,
  VERBOSE,
} from '../keychain/credentials.js';
import { scanHostKey } from '../keychain/host-key-scan.js';
import { generateRsaKeyPair } from '../keychain/ssh-keys.js';
import { implement, type CallContext } from '../method.js';
import { getInstance, query } from '../query/index.js';

// The handlers of contract/keychain.ts, as KeychainCredentialService answers them
// (MW/plugins/keychain.py:275-684, MW/plugins/keychain_/ssh_connections.py). Credentials are stored
// with their private keys, as the source stores them (in its database); no SSH connection is ever
// made, so the semi-automatic setup answers that it is not emulated; remote_ssh_host_key_scan reads
// the host key of another `stor serve` on loopback (keychain/host-key-scan.ts).

/**
 * Whether answers show `attributes` (`Secret`) to this caller: FULL_ADMIN or
 * KEYCHAIN_CREDENTIAL_WRITE (dump_result, MW/main.py:834-845); others get `********`.
 */
const exposesSecrets = (ctx: CallContext) =>
  ctx.session.isFullAdmin || ctx.session.hasRole('KEYCHAIN_CREDENTIAL_WRITE');

/** An answer item with its attributes replaced by the placeholder (MW/api/base/model.py:204-214). */
function redacted<T>(item: T): T {
  if (item === null || typeof item !== 'object' || !('attributes' in item)) return item;
  return { ...item, attributes: SECRET_PLACEHOLDER };
}

function entries(appliance: Appliance): KeychainCredentialEntry[] {
  const { store } = appliance;
  return store.read(() => listKeychainCredentials(store.db).map(entryOf));
}

/**
 * The datastore's refusal of a filter reaching into `attributes` (`attributes.x`, `attributes__x`):
 * it reads the dotted name as a foreign key, and the encrypted JSON column has none, so
 * `list(col.foreign_keys)[0]` raises IndexError (MW/plugins/datastore/filter.py:68-70; the
 * column: MW/plugins/keychain.py:250; no extend, so CRUDService filters in SQL, MW/service/crud_service.py:159-172).
 * Filtering on the decrypted keys would let a caller who sees `********` probe a private key by prefix.
 */
function refuseAttributeFilters(filters: unknown): void {
  if (!Array.isArray(filters)) return;
  for (const f of filters as unknown[]) {
    if (!Array.isArray(f)) continue;
    if (f.length === 2 && f[0] === 'OR') refuseAttributeFilters(f[1]);
    const name = f.length === 3 && typeof f[0] === 'string' ? f[0] : '';
    if (/^attributes(__|\.)/.test(name))
      throw rpcErrors.exception('IndexError', 'list index out of range', "IndexError('list index out of range')");
  }
}

/** Filters and options read the stored values; the answer is redacted after (the result model's dump). */
function answered<T>(ctx: CallContext, answer: T): T {
  if (exposesSecrets(ctx)) return answer;
  return (Array.isArray(answer) ? answer.map(redacted) : redacted(answer)) as T;
}

type NewCredential = { name: string; type: string; attributes: Record<string, unknown> };

/** do_create (MW/plugins/keychain.py:289-322): validate, insert; answers `data` with its id. */
function createCredential(appliance: Appliance, data: NewCredential): KeychainCredentialEntry {
  const { store } = appliance;
  const attributes = { ...data.attributes };
  return store.write(() => {
    validateCredential(store.db, 'keychain_credential_create', { ...data, attributes });
    const id = insertKeychainCredential(store.db, { name: data.name, type: data.type, attributes });
    return entryOf({ id, name: data.name, type: data.type, attributes });
  });
}

/** An inner `keychaincredential.create` (setup_ssh_connection's): its CRUD wrapper sends ADDED. */
function createThroughService(appliance: Appliance, data: NewCredential): KeychainCredentialEntry {
  const entry = createCredential(appliance, data);
  publishEvent(appliance, 'keychaincredential.create', [data], entry);
  return entry;
}

/** Inner `keychaincredential.delete` calls with cascade (MW/plugins/keychain.py:88-89): each sends REMOVED. */
function publishInnerDeletes(appliance: Appliance, ids: readonly number[]) {
  for (const id of ids) publishEvent(appliance, 'keychaincredential.delete', [id, { cascade: true }], null);
}

const notEmulated = (what: string) =>
  rpcErrors.call(ERRNO.EOPNOTSUPP, `${what} is not emulated: stor serve makes no SSH or remote API connection`);

/** `_validate_options` (MW/plugins/keychain_/ssh_connections.py:10-34): all three checks, then raise. */
function validateSetupOptions(
  appliance: Appliance,
  options: { private_key: Record<string, unknown>; connection_name: string },
) {
  const all = entries(appliance);
  const schema = 'setup_ssh_connection';
  const errors: ValidationTriple[] = [];
  const key = options.private_key;
  if (key.generate_key) {
    if (all.some((c) => c.name === key.name))
      errors.push([`${schema}.private_key.name`, 'Is already in use by another SSH Key pair', ERRNO.EINVAL]);
  } else if (!all.some((c) => c.id === key.existing_key_id)) {
    errors.push([`${schema}.private_key.existing_key_id`, 'SSH Key Pair not found', ERRNO.EINVAL]);
  }
  if (all.some((c) => c.name === options.connection_name))
    errors.push([`${schema}.connection_name`, 'Is already in use by another Keychain Credential', ERRNO.EINVAL]);
  if (errors.length > 0) throw rpcErrors.validation(errors);
}

/** generate_ssh_key_pair (MW/plugins/keychain.py:465-490): `ssh-keygen` runs as root, so `root@<hostname>`. */
const newKeyPair = () => generateRsaKeyPair(`root@${hostname()}`);

const c = keychainContract;

export const keychainMethods = [
  implement(c['keychaincredential.query'], (ctx, filters, options) => {
    refuseAttributeFilters(filters);
    return answered(ctx, query(entries(ctx.appliance), filters, options));
  }),
  implement(c['keychaincredential.get_instance'], (ctx, id, options) =>
    answered(ctx, getInstance(entries(ctx.appliance), id, options, VERBOSE)),
  ),
  implement(c['keychaincredential.create'], ({ appliance }, data) => createCredential(appliance, data)),
  // do_update (MW/plugins/keychain.py:330-373): the stored entry with `data` laid over it (so
  // `attributes` is replaced whole), validated as a whole under `keychain_credentials_update`.
  implement(c['keychaincredential.update'], ({ appliance: { store } }, id, data) =>
    store.write(() => {
      const old = findCredential(store.db, id);
      const merged = { ...old, ...data, attributes: { ...(data.attributes ?? old.attributes) } };
      validateCredential(store.db, 'keychain_credentials_update', merged, id);
      updateKeychainCredential(store.db, { id, name: merged.name, type: merged.type, attributes: merged.attributes });
      return entryOf({ ...merged, id });
    }),
  ),
  implement(c['keychaincredential.delete'], ({ appliance }, id, options) => {
    const { store } = appliance;
    const inner = store.write(() => deleteCredential(store.db, id, options.cascade));
    publishInnerDeletes(appliance, inner);
    return null;
  }),
  implement(c['keychaincredential.used_by'], ({ appliance: { store } }, id) => store.read(() => usedBy(store.db, id))),
  implement(c['keychaincredential.generate_ssh_key_pair'], () => newKeyPair()),
  implement(c['keychaincredential.remote_ssh_host_key_scan'], (_, data) =>
    scanHostKey(data.host, data.port, data.connect_timeout),
  ),
  implement(c['keychaincredential.remote_ssh_semiautomatic_setup'], () => {
    throw notEmulated('keychaincredential.remote_ssh_semiautomatic_setup');
  }),
  // setup_ssh_connection (MW/plugins/keychain_/ssh_connections.py:43-97): a key pair generated
  // and created, or the existing one's get_instance; then the SSH credentials; a generated key is
  // deleted again when that step fails.
  implement(c['keychaincredential.setup_ssh_connection'], ({ appliance }, options) => {
    validateSetupOptions(appliance, options);
    const key = options.private_key;
    const pair =
      'name' in key
        ? createThroughService(appliance, { name: key.name, type: 'SSH_KEY_PAIR', attributes: newKeyPair() })
        : getInstance(entries(appliance), key.existing_key_id, {}, VERBOSE);
    try {
      if (options.setup_type === 'SEMI-AUTOMATIC')
        throw notEmulated('keychaincredential.remote_ssh_semiautomatic_setup');
      const created = createThroughService(appliance, {
        type: 'SSH_CREDENTIALS',
        name: options.connection_name,
        attributes: { ...options.manual_setup, private_key: pair.id },
      });
      return created as KeychainCredentialEntry & { type: 'SSH_CREDENTIALS' };
    } catch (err) {
      if ('name' in key) {
        const { store } = appliance;
        // `keychaincredential.delete(id)`: no cascade (nothing uses a key made a moment ago).
        store.write(() => deleteCredential(store.db, pair.id, false));
        publishEvent(appliance, 'keychaincredential.delete', [pair.id, { cascade: false }], null);
      }
      throw err;
    }
  }),
];
