/**
 * keychaincredential.* through the official client (`truenas_api_client.Client.call`, as `midclt
 * call` calls them) against `stor serve --emulate truenas-25.10.1` and `truenas-26.0`: each method
 * once with a valid argument, whose answer must be what the release's result schema accepts, and
 * once with an invalid one, which must fail as midclt prints the release's error. The lines
 * followed: MW/api/v25_10_1/keychain.py (the models; stable/26 MW/api/v26_0_0/keychain.py has the
 * same fields), MW/plugins/keychain.py:135-180 (the key checks), :397-433 (delete, used_by),
 * MW/service/crud_service.py:242 (get_instance's not found). The remote scan and the
 * semi-automatic setup are not emulated: their answer is the emulator's CallError, EOPNOTSUPP.
 *
 * Needs STOR_TEST_API_CLIENT (see official-client-methods.test.ts), and drives 26.0 with stable/26's
 * client where STOR_TEST_API_CLIENT_26 is set (`clientFor`); without the former the test is skipped.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { contractFor } from '../../src/core/releases/index.js';
import { startTestServer } from '../helpers/server.js';
import { ED25519_PRIVATE, ED25519_PUBLIC, OTHER_PUBLIC } from '../helpers/ssh-key-fixtures.js';
import {
  KEYCHAIN_METHODS,
  caseFailures,
  clientFor,
  printed,
  ref,
  runClient,
  type ClientCase,
} from '../conformance/official-client.js';

const id = ref('keychaincredential.create', 'id');

/** In call order; each bad call runs just before its valid one. */
const CASES: ClientCase[] = [
  {
    method: 'keychaincredential.create',
    valid: [{ name: 'backup', type: 'SSH_KEY_PAIR', attributes: { private_key: ED25519_PRIVATE } }],
    bad: [{ name: 'none', type: 'SSH_KEY_PAIR', attributes: {} }],
    stderr: printed(['EINVAL', 'keychain_credential_create.attributes.public_key', 'You must specify a key']),
  },
  {
    method: 'keychaincredential.query',
    valid: [[['name', '=', 'backup']]],
    bad: ['x'],
    stderr: printed(['EINVAL', 'filters', 'Input should be a valid list']),
  },
  {
    method: 'keychaincredential.get_instance',
    valid: [id],
    bad: [99999],
    stderr: printed(['ENOENT', 'ALL', 'KeychainCredential 99999 does not exist']),
  },
  {
    method: 'keychaincredential.update',
    valid: [id, { name: 'backup2' }],
    bad: [id, { attributes: { public_key: 'ssh-ed25519 AAAA' } }],
    stderr: printed(['EINVAL', 'keychain_credentials_update.attributes.public_key', 'Invalid public key']),
  },
  {
    method: 'keychaincredential.setup_ssh_connection',
    valid: [
      {
        private_key: { generate_key: false, existing_key_id: id },
        connection_name: 'nas2',
        manual_setup: { host: 'nas2.example', remote_host_key: OTHER_PUBLIC },
      },
    ],
    bad: [
      {
        private_key: { generate_key: false, existing_key_id: 99999 },
        connection_name: 'backup2',
        manual_setup: { host: 'nas2.example', remote_host_key: OTHER_PUBLIC },
      },
    ],
    stderr: printed(
      ['EINVAL', 'setup_ssh_connection.private_key.existing_key_id', 'SSH Key Pair not found'],
      ['EINVAL', 'setup_ssh_connection.connection_name', 'Is already in use by another Keychain Credential'],
    ),
  },
  {
    method: 'keychaincredential.used_by',
    valid: [id],
    bad: ['x'],
    stderr: printed(['EINVAL', 'id', 'Input should be a valid integer']),
  },
  {
    method: 'keychaincredential.generate_ssh_key_pair',
    valid: [],
    bad: [1],
    stderr: printed(['EINVAL', 'ALL', 'Too many arguments (expected 0, found 1)']),
  },
  {
    method: 'keychaincredential.delete',
    valid: [id, { cascade: true }],
    bad: [id],
    stderr: printed(['EINVAL', 'options.cascade', 'This credential is used and no cascade option is specified']),
  },
];

/**
 * Called with a valid argument, these answer that they are not emulated; an invalid one is refused
 * by the release's schema first, as the source refuses it (KeychainCredentialRemoteSshHostKeyScanArgs:
 * `host: NonEmptyString`, MW/api/v25_10_1/keychain.py:166-172, stable/26 :164-168;
 * KeychainCredentialRemoteSSHSemiautomaticSetup `url: HttpUrl`, MW/api/v25_10_1/keychain.py:181-198, whose
 * refusal is pydantic's own `url_parsing` error, no `Value error, ` prefix: MW/api/base/types/string.py:60).
 */
const NOT_EMULATED = [
  {
    method: 'keychaincredential.remote_ssh_host_key_scan',
    params: [{ host: 'nas2.example' }],
    bad: [{ host: '' }],
    stderr: printed(['EINVAL', 'keychain_remote_ssh_host_key_scan.host', 'String should have at least 1 character']),
  },
  {
    method: 'keychaincredential.remote_ssh_semiautomatic_setup',
    params: [{ name: 'semi', url: 'https://nas2.example', token: 't', private_key: 1 }],
    bad: [{ name: 'semi', url: 'nas2', token: 't', private_key: 1 }],
    stderr: printed(['EINVAL', 'data.url', 'Input should be a valid URL, relative URL without a base']),
  },
];

for (const release of ['25.10.1', '26.0'] as const) {
  const client = clientFor(release);
  describe(`keychaincredential.* through the official client (stor serve --emulate truenas-${release})`, () => {
    it('the table calls every keychain credential method once', () => {
      expect([...CASES.map((c) => c.method), ...NOT_EMULATED.map((c) => c.method)].sort()).toEqual(
        [...KEYCHAIN_METHODS].sort(),
      );
    });

    it("each valid call answers the release's result shape; each invalid one fails with its words as midclt prints them", async (ctx) => {
      if ('reason' in client) return ctx.skip(client.reason);
      const contract = contractFor(release);
      const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
      const steps = [
        ...CASES.flatMap((c) => [
          { label: `${c.method} bad`, method: c.method, params: c.bad },
          { label: c.method, method: c.method, params: c.valid },
        ]),
        ...NOT_EMULATED.flatMap((c) => [
          { label: `${c.method} bad`, method: c.method, params: c.bad },
          { label: c.method, method: c.method, params: c.params },
        ]),
      ];
      const outcomes = await runClient(client.env, server.rpcUrl, server.adminKey, steps);
      const { failures, answers } = caseFailures(contract, CASES, outcomes);
      expect(failures).toEqual([]);
      expect(answers['keychaincredential.create']).toEqual({
        id: 1,
        name: 'backup',
        type: 'SSH_KEY_PAIR',
        attributes: { private_key: ED25519_PRIVATE, public_key: ED25519_PUBLIC },
      });
      expect(answers['keychaincredential.setup_ssh_connection']).toMatchObject({
        id: 2,
        name: 'nas2',
        type: 'SSH_CREDENTIALS',
        attributes: { private_key: 1, port: 22, username: 'root', connect_timeout: 10 },
      });
      expect(answers['keychaincredential.used_by']).toEqual([
        { title: 'SSH credentials nas2', unbind_method: 'delete' },
      ]);
      expect(answers['keychaincredential.delete']).toBeNull();
      for (const { method, stderr } of NOT_EMULATED) {
        expect(outcomes.get(method)).toMatchObject({ ok: false, class: 'ClientException', errno: 95 });
        expect(outcomes.get(`${method} bad`)).toMatchObject({ ok: false, class: 'ValidationErrors', stderr });
      }
    });
  });
}
