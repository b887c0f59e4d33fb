/**
 * keychaincredential.* of the embedded appliance, as 25.10.1 and 26.0 answer them, driven in-process
 * through the real dispatcher (every answer checked against the contract). The sources followed
 * (MW = src/middlewared/middlewared at TS-25.10.1; stable/26 differs only in descriptions, and in
 * the passphrase prompt's prefix, which changes nothing here):
 * - the models: MW/api/v25_10_1/keychain.py; stable/26 MW/api/v26_0_0/keychain.py;
 * - KeychainCredentialService: MW/plugins/keychain.py:275-684, MW/plugins/keychain_/ssh_connections.py;
 * - secrets in answers: MW/main.py:834-845; events: MW/service/crud_service.py:204-216.
 */
import { describe, expect, it } from 'vitest';
import type { CollectionUpdate } from '../../../../src/core/appliance/events.js';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import type { RpcError } from '../../../../src/core/errors.js';
import { createUserWithKey, openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { ED25519_ENCRYPTED, ED25519_PRIVATE, ED25519_PUBLIC, OTHER_PUBLIC } from '../../../helpers/ssh-key-fixtures.js';

type Entry = Record<string, unknown>;
type Triple = [string | null, string, number];
const EINVAL = 22;

const setup = (release: '25.10.1' | '26.0') =>
  openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });

const create = (t: TestAppliance, data: Entry) => t.call<Entry>(t.admin, 'keychaincredential.create', data);
const keyPair = (name: string, attributes: Entry) => ({ name, type: 'SSH_KEY_PAIR', attributes });
const connection = (name: string, privateKey: number) => ({
  name,
  type: 'SSH_CREDENTIALS',
  attributes: { host: 'nas2.example', private_key: privateKey, remote_host_key: OTHER_PUBLIC },
});

async function triples(t: TestAppliance, method: string, ...params: unknown[]): Promise<Triple[]> {
  const err: RpcError = await t.callError(t.admin, method, ...params);
  expect(err.code).toBe(-32602);
  return err.data!.extra as Triple[];
}

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`keychaincredential on ${release}`, () => {
    it('create of a key pair from its private key alone stores the key stripped with one newline and derives the public key as ssh-keygen -y prints it (MW/plugins/keychain.py:142-165)', async () => {
      const t = await setup(release);
      const entry = await create(t, keyPair('backup', { private_key: `\n  ${ED25519_PRIVATE}\n\n` }));
      expect(entry).toEqual({
        id: 1,
        name: 'backup',
        type: 'SSH_KEY_PAIR',
        attributes: { private_key: ED25519_PRIVATE, public_key: ED25519_PUBLIC },
      });
      expect(Object.keys(entry)).toEqual(['id', 'name', 'type', 'attributes']);
      expect(await t.call(t.admin, 'keychaincredential.get_instance', 1)).toEqual(entry);
    });

    it('create of a key pair from a public key alone keeps it as given (MW/plugins/keychain.py:167-180)', async () => {
      const t = await setup(release);
      const entry = await create(t, keyPair('pub', { public_key: OTHER_PUBLIC }));
      expect(entry.attributes).toEqual({ private_key: null, public_key: OTHER_PUBLIC });
    });

    it('a key pair with neither key is refused: "You must specify a key" (MW/plugins/keychain.py:167-169)', async () => {
      const t = await setup(release);
      expect(await triples(t, 'keychaincredential.create', keyPair('none', {}))).toEqual([
        ['keychain_credential_create.attributes.public_key', 'You must specify a key', EINVAL],
      ]);
    });

    it('a public key that is not the private key’s is refused: "Private key and public key do not match" (MW/plugins/keychain.py:161-163)', async () => {
      const t = await setup(release);
      const attributes = { private_key: ED25519_PRIVATE, public_key: OTHER_PUBLIC };
      expect(await triples(t, 'keychaincredential.create', keyPair('mismatch', attributes))).toEqual([
        ['keychain_credential_create.attributes.public_key', 'Private key and public key do not match', EINVAL],
      ]);
    });

    it('the public key is compared by its first two words: another comment matches (MW/plugins/keychain.py:187-188)', async () => {
      const t = await setup(release);
      const publicKey = `${ED25519_PUBLIC.split(' ').slice(0, 2).join(' ')} someone-else`;
      const entry = await create(t, keyPair('comment', { private_key: ED25519_PRIVATE, public_key: publicKey }));
      expect((entry.attributes as Entry).public_key).toBe(publicKey);
    });

    it('an encrypted private key is refused: "Encrypted private keys are not allowed" (MW/plugins/keychain.py:153-154)', async () => {
      const t = await setup(release);
      expect(await triples(t, 'keychaincredential.create', keyPair('enc', { private_key: ED25519_ENCRYPTED }))).toEqual(
        [['keychain_credential_create.attributes.private_key', 'Encrypted private keys are not allowed', EINVAL]],
      );
    });

    it('a private key ssh-keygen cannot read is refused with its stderr, which names the temporary file (MW/plugins/keychain.py:155-158)', async () => {
      const t = await setup(release);
      const [triple, ...rest] = await triples(
        t,
        'keychaincredential.create',
        keyPair('bad', { private_key: 'not a key' }),
      );
      expect(rest).toEqual([]);
      expect(triple![0]).toBe('keychain_credential_create.attributes.private_key');
      expect(triple![1]).toMatch(/^Load key "\/tmp\/tmp[a-z0-9_]{8}": error in libcrypto\n$/);
    });

    it('a public key ssh-keygen -l cannot read is refused: "Invalid public key" (MW/plugins/keychain.py:171-180)', async () => {
      const t = await setup(release);
      expect(await triples(t, 'keychaincredential.create', keyPair('bad', { public_key: 'ssh-ed25519 AAAA' }))).toEqual(
        [['keychain_credential_create.attributes.public_key', 'Invalid public key', EINVAL]],
      );
    });

    it('a name already taken is refused before the keys are looked at, under the schema name of the call (MW/plugins/keychain.py:315, 362, 438-439)', async () => {
      const t = await setup(release);
      await create(t, keyPair('taken', { public_key: OTHER_PUBLIC }));
      await create(t, keyPair('other', { public_key: OTHER_PUBLIC }));
      expect(await triples(t, 'keychaincredential.create', keyPair('taken', {}))).toEqual([
        ['keychain_credential_create.name', 'Object with this name already exists', EINVAL],
      ]);
      // do_update's schema name is keychain_credentials_update (plural), as the source spells it.
      expect(await triples(t, 'keychaincredential.update', 2, { name: 'taken' })).toEqual([
        ['keychain_credentials_update.name', 'Object with this name already exists', EINVAL],
      ]);
    });

    it('SSH credentials take SSHCredentials’ defaults, and their private_key id is not looked up (MW/api/v25_10_1/keychain.py:28-40; SSHCredentials has no checks, MW/plugins/keychain.py:224-231)', async () => {
      const t = await setup(release);
      const entry = await create(t, connection('nas2', 99));
      expect(entry).toEqual({
        id: 1,
        name: 'nas2',
        type: 'SSH_CREDENTIALS',
        attributes: {
          host: 'nas2.example',
          port: 22,
          username: 'root',
          private_key: 99,
          remote_host_key: OTHER_PUBLIC,
          connect_timeout: 10,
        },
      });
    });

    it('create’s argument is a union of the two models: a type with the other’s attributes is refused under both class names', async () => {
      const t = await setup(release);
      const found = await triples(t, 'keychaincredential.create', {
        name: 'x',
        type: 'SSH_CREDENTIALS',
        attributes: { private_key: ED25519_PRIVATE },
      });
      const attrs = found.map(([a]) => a);
      expect(attrs).toContain('keychain_credential_create.KeychainCredentialCreateSSHKeyPairEntry.type');
      expect(attrs).toContain('keychain_credential_create.KeychainCredentialCreateSSHCredentialsEntry.attributes.host');
    });

    it('update replaces the attributes whole and checks the result as a whole (MW/plugins/keychain.py:356-373)', async () => {
      const t = await setup(release);
      await create(t, keyPair('k', { private_key: ED25519_PRIVATE }));
      const updated = await t.call<Entry>(t.admin, 'keychaincredential.update', 1, {
        attributes: { public_key: OTHER_PUBLIC },
      });
      expect(updated).toEqual({
        id: 1,
        name: 'k',
        type: 'SSH_KEY_PAIR',
        attributes: { private_key: null, public_key: OTHER_PUBLIC },
      });
      expect(await triples(t, 'keychaincredential.update', 1, { attributes: {} })).toEqual([
        ['keychain_credentials_update.attributes.public_key', 'You must specify a key', EINVAL],
      ]);
      const missing = await t.callError(t.admin, 'keychaincredential.update', 7, { name: 'x' });
      expect(missing.data?.reason).toBe('[ENOENT] None: KeychainCredential 7 does not exist');
    });

    it('a caller with KEYCHAIN_CREDENTIAL_READ alone reads attributes as ******** (Secret, MW/main.py:834-845); WRITE reads them', async () => {
      const t = await setup(release);
      await create(t, keyPair('k', { private_key: ED25519_PRIVATE }));
      const reader = await createUserWithKey(t, 'reader', { privilegeRoles: ['KEYCHAIN_CREDENTIAL_READ'] });
      const writer = await createUserWithKey(t, 'writer', { privilegeRoles: ['KEYCHAIN_CREDENTIAL_WRITE'] });
      const { session: r } = await t.login(reader.key);
      const { session: w } = await t.login(writer.key);
      expect(await t.call(r, 'keychaincredential.query')).toEqual([
        { id: 1, name: 'k', type: 'SSH_KEY_PAIR', attributes: '********' },
      ]);
      expect(await t.call(r, 'keychaincredential.get_instance', 1)).toEqual({
        id: 1,
        name: 'k',
        type: 'SSH_KEY_PAIR',
        attributes: '********',
      });
      expect(await t.call(r, 'keychaincredential.query', [], { count: true })).toBe(1);
      expect(await t.call<Entry[]>(w, 'keychaincredential.query')).toEqual([
        {
          id: 1,
          name: 'k',
          type: 'SSH_KEY_PAIR',
          attributes: { private_key: ED25519_PRIVATE, public_key: ED25519_PUBLIC },
        },
      ]);
      // Writing needs WRITE (role_prefix KEYCHAIN_CREDENTIAL, MW/plugins/keychain.py:280).
      expect(
        (await t.callError(r, 'keychaincredential.create', keyPair('x', { public_key: OTHER_PUBLIC }))).errname,
      ).toBe('EACCES');
    });

    it('a filter reaching into attributes fails as the datastore fails it (IndexError), so a reader cannot probe a private key by prefix (MW/plugins/datastore/filter.py:68-70, keychain.py:250)', async () => {
      const t = await setup(release);
      await create(t, keyPair('k', { private_key: ED25519_PRIVATE }));
      const reader = await createUserWithKey(t, 'reader', { privilegeRoles: ['KEYCHAIN_CREDENTIAL_READ'] });
      const { session: r } = await t.login(reader.key);
      const prefix = ED25519_PRIVATE.slice(0, 40);
      for (const filters of [
        [['attributes.private_key', '^', prefix]],
        [['attributes__private_key', '^', prefix]],
        [
          [
            'OR',
            [
              ['attributes.private_key', '^', prefix],
              ['id', '=', 1],
            ],
          ],
        ],
      ]) {
        for (const session of [r, t.admin]) {
          const err = await t.callError(session, 'keychaincredential.query', filters);
          expect(err.data?.reason).toBe('list index out of range');
          expect(err.data?.trace?.class).toBe('IndexError');
        }
      }
    });

    it('delete of a key pair SSH credentials use is refused without cascade; used_by names them; cascade deletes them first (MW/plugins/keychain.py:95-99, 397-433)', async () => {
      const t = await setup(release);
      await create(t, keyPair('k', { public_key: OTHER_PUBLIC }));
      await create(t, connection('nas2', 1));
      expect(await t.call(t.admin, 'keychaincredential.used_by', 1)).toEqual([
        { title: 'SSH credentials nas2', unbind_method: 'delete' },
      ]);
      expect(await t.call(t.admin, 'keychaincredential.used_by', 2)).toEqual([]);
      const err = await t.callError(t.admin, 'keychaincredential.delete', 1);
      expect(err.data?.reason).toBe(
        '[EINVAL] options.cascade: This credential is used and no cascade option is specified',
      );
      expect(await t.call<Entry[]>(t.admin, 'keychaincredential.query', [], { select: ['id'] })).toEqual([
        { id: 1 },
        { id: 2 },
      ]);
      const heard: CollectionUpdate[] = [];
      t.admin.notify = (_method, params) => heard.push(params as CollectionUpdate);
      await t.call(t.admin, 'core.subscribe', 'keychaincredential.query');
      expect(await t.call(t.admin, 'keychaincredential.delete', 1, { cascade: true })).toBeNull();
      expect(await t.call(t.admin, 'keychaincredential.query')).toEqual([]);
      // The inner keychaincredential.delete of the SSH credentials sends its REMOVED first (:88-89).
      expect(heard).toEqual([
        { msg: 'removed', collection: 'keychaincredential.query', id: 2 },
        { msg: 'removed', collection: 'keychaincredential.query', id: 1 },
      ]);
    });

    it('SSH credentials a replication task uses: used_by names it "Replication task <name>", disable; delete without cascade is refused; cascade disables the task and clears its credentials, with no replication.query event (MW/plugins/keychain.py:191-205, 381-433)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/src' });
      await create(t, keyPair('k', { public_key: OTHER_PUBLIC }));
      await create(t, connection('nas2', 1));
      const replication = (name: string) =>
        t.call<Entry>(t.admin, 'replication.create', {
          name,
          direction: 'PUSH',
          transport: 'SSH',
          ssh_credentials: 2,
          source_datasets: ['tank/src'],
          target_dataset: 'backup/src',
          recursive: false,
          auto: false,
          retention_policy: 'NONE',
          also_include_naming_schema: ['auto-%Y-%m-%d_%H-%M'],
        });
      await replication('push-b');
      await replication('push-a');
      expect(await t.call(t.admin, 'keychaincredential.used_by', 2)).toEqual([
        { title: 'Replication task push-b', unbind_method: 'disable' },
        { title: 'Replication task push-a', unbind_method: 'disable' },
      ]);
      // A key pair's used_by walks into the SSH credentials' own users (:429-430).
      expect(await t.call(t.admin, 'keychaincredential.used_by', 1)).toEqual([
        { title: 'SSH credentials nas2', unbind_method: 'delete' },
        { title: 'Replication task push-b', unbind_method: 'disable' },
        { title: 'Replication task push-a', unbind_method: 'disable' },
      ]);
      const err = await t.callError(t.admin, 'keychaincredential.delete', 2);
      expect(err.data?.reason).toBe(
        '[EINVAL] options.cascade: This credential is used and no cascade option is specified',
      );
      const heard: CollectionUpdate[] = [];
      t.admin.notify = (_method, params) => heard.push(params as CollectionUpdate);
      await t.call(t.admin, 'core.subscribe', 'keychaincredential.query');
      await t.call(t.admin, 'core.subscribe', 'replication.query');
      expect(await t.call(t.admin, 'keychaincredential.delete', 1, { cascade: true })).toBeNull();
      expect(
        await t.call<Entry[]>(t.admin, 'replication.query', [], { select: ['name', 'enabled', 'ssh_credentials'] }),
      ).toEqual([
        { name: 'push-b', enabled: false, ssh_credentials: null },
        { name: 'push-a', enabled: false, ssh_credentials: null },
      ]);
      // datastore.update sends no event: no datastore event is registered for storage.replication
      // (MW/plugins/datastore/event.py:25-52); the inner delete of the SSH credentials sends its REMOVED.
      expect(heard).toEqual([
        { msg: 'removed', collection: 'keychaincredential.query', id: 2 },
        { msg: 'removed', collection: 'keychaincredential.query', id: 1 },
      ]);
    });

    it('sends collection_update ADDED and CHANGED with the entry as the plugin returned it, attributes included (MW/service/crud_service.py:204-210)', async () => {
      const t = await setup(release);
      const heard: CollectionUpdate[] = [];
      t.admin.notify = (_method, params) => heard.push(params as CollectionUpdate);
      await t.call(t.admin, 'core.subscribe', 'keychaincredential.query');
      const created = await create(t, keyPair('k', { public_key: OTHER_PUBLIC }));
      const updated = await t.call(t.admin, 'keychaincredential.update', 1, { name: 'k2' });
      expect(heard).toEqual([
        { msg: 'added', collection: 'keychaincredential.query', id: 1, fields: created },
        { msg: 'changed', collection: 'keychaincredential.query', id: 1, fields: updated },
      ]);
    });

    it('a key pair updated with SSH credentials’ attributes fails as the source does, on `.strip()` of an int (MW/plugins/keychain.py:142)', async () => {
      const t = await setup(release);
      await create(t, keyPair('k', { public_key: OTHER_PUBLIC }));
      const { attributes } = connection('k', 5);
      const err = await t.callError(t.admin, 'keychaincredential.update', 1, { attributes });
      expect(err.data?.reason).toBe("'int' object has no attribute 'strip'");
      expect(err.data?.trace?.class).toBe('AttributeError');
    });

    it('a subscriber holding KEYCHAIN_CREDENTIAL_READ alone hears the attributes in the event, as the CRUD wrapper sends what do_create returned (MW/service/crud_service.py:206-210)', async () => {
      const t = await setup(release);
      const reader = await createUserWithKey(t, 'reader', { privilegeRoles: ['KEYCHAIN_CREDENTIAL_READ'] });
      const { session: r } = await t.login(reader.key);
      const heard: CollectionUpdate[] = [];
      r.notify = (_method, params) => heard.push(params as CollectionUpdate);
      await t.call(r, 'core.subscribe', 'keychaincredential.query');
      await create(t, keyPair('k', { private_key: ED25519_PRIVATE }));
      expect(heard.map((u) => (u.fields as Entry).attributes)).toEqual([
        { private_key: ED25519_PRIVATE, public_key: ED25519_PUBLIC },
      ]);
    });

    it('generate_ssh_key_pair answers an unencrypted RSA pair in OpenSSH’s format, commented root@<host>, that create accepts as it is (MW/plugins/keychain.py:479-490)', async () => {
      const t = await setup(release);
      const pair = await t.call<{ private_key: string; public_key: string }>(
        t.admin,
        'keychaincredential.generate_ssh_key_pair',
      );
      expect(pair.private_key).toMatch(
        /^-----BEGIN OPENSSH PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END OPENSSH PRIVATE KEY-----\n$/,
      );
      expect(pair.public_key).toMatch(/^ssh-rsa AAAAB3NzaC1yc2E[A-Za-z0-9+/=]+ root@\S+\n$/);
      const entry = await create(t, keyPair('gen', pair));
      expect(entry.attributes).toEqual(pair);
    });

    it('setup_ssh_connection MANUAL makes the key pair, then the SSH credentials using it (MW/plugins/keychain_/ssh_connections.py:53-97)', async () => {
      const t = await setup(release);
      const made = await t.call<Entry>(t.admin, 'keychaincredential.setup_ssh_connection', {
        private_key: { generate_key: true, name: 'repl-key' },
        connection_name: 'nas2',
        manual_setup: { host: 'nas2.example', remote_host_key: OTHER_PUBLIC },
      });
      expect(made).toMatchObject({ id: 2, name: 'nas2', type: 'SSH_CREDENTIALS' });
      expect((made.attributes as Entry).private_key).toBe(1);
      const names = await t.call<Entry[]>(t.admin, 'keychaincredential.query', [], { select: ['name', 'type'] });
      expect(names).toEqual([
        { name: 'repl-key', type: 'SSH_KEY_PAIR' },
        { name: 'nas2', type: 'SSH_CREDENTIALS' },
      ]);
    });

    it('setup_ssh_connection checks both names and the existing key before anything, and reports all three (MW/plugins/keychain_/ssh_connections.py:10-34)', async () => {
      const t = await setup(release);
      await create(t, keyPair('k', { public_key: OTHER_PUBLIC }));
      expect(
        await triples(t, 'keychaincredential.setup_ssh_connection', {
          private_key: { generate_key: false, existing_key_id: 9 },
          connection_name: 'k',
          manual_setup: { host: 'h', remote_host_key: OTHER_PUBLIC },
        }),
      ).toEqual([
        ['setup_ssh_connection.private_key.existing_key_id', 'SSH Key Pair not found', EINVAL],
        ['setup_ssh_connection.connection_name', 'Is already in use by another Keychain Credential', EINVAL],
      ]);
    });

    it('the semi-automatic setup is not emulated: it says so, and a key it generated is deleted again (MW/plugins/keychain_/ssh_connections.py:92-95)', async () => {
      const t = await setup(release);
      const err = await t.callError(t.admin, 'keychaincredential.setup_ssh_connection', {
        private_key: { generate_key: true, name: 'repl-key' },
        connection_name: 'nas2',
        setup_type: 'SEMI-AUTOMATIC',
        semi_automatic_setup: { url: 'https://nas2.example', token: 'x' },
      });
      expect(err.errname).toBe('EOPNOTSUPP');
      expect(err.data?.reason).toMatch(/not emulated/);
      expect(await t.call(t.admin, 'keychaincredential.query')).toEqual([]);
      const scan = await t.callError(t.admin, 'keychaincredential.remote_ssh_host_key_scan', { host: 'nas2.example' });
      expect(scan.errname).toBe('EOPNOTSUPP');
    });
  });
}
