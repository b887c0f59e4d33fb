import * as z from 'zod';
import { secret } from './accounts-common.js';
import { crud } from './crud.js';
import { nonEmptyStr, once, roles, str } from './method.js';
import { pydanticTaggedUnion, pydanticUnion } from './pydantic-union.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/keychain.py`; service KeychainCredentialService (MW/plugins/keychain.py:275-281):
// a CRUDService with role_prefix KEYCHAIN_CREDENTIAL, so query and get_instance need
// KEYCHAIN_CREDENTIAL_READ, create, update and delete KEYCHAIN_CREDENTIAL_WRITE (MW/main.py:315-337);
// used_by READ (:416), generate_ssh_key_pair, remote_ssh_host_key_scan and
// remote_ssh_semiautomatic_setup WRITE (:460-535), setup_ssh_connection WRITE
// (MW/plugins/keychain_/ssh_connections.py:36-42). stable/26's models (MW/api/v26_0_0/keychain.py) are
// the same fields with their descriptions moved into Field(): one contract serves both releases.

export const KEYCHAIN_TYPES = ['SSH_KEY_PAIR', 'SSH_CREDENTIALS'] as const;
export type KeychainType = (typeof KEYCHAIN_TYPES)[number];

/** LongString (MW/api/base/types/string.py:27): up to 2,048,000 characters. */
const longStr = () => z.string().max(2_048_000);

/** SSHKeyPair (keychain.py:20-25): both keys optional; validation says at least one. */
export const sshKeyPair = once(() =>
  z.strictObject({
    private_key: longStr().nullable().default(null),
    public_key: longStr().nullable().default(null),
  }),
);

/** SSHCredentials (keychain.py:28-40): `private_key` is the id of an SSH_KEY_PAIR credential. */
export const sshCredentials = once(() =>
  z.strictObject({
    host: str(),
    port: z.int().default(22),
    username: str().default('root'),
    private_key: z.int(),
    remote_host_key: str(),
    connect_timeout: z.int().default(10),
  }),
);

/**
 * The entry's `attributes` as an answer carries them (`Secret[SSHKeyPair | SSHCredentials]`,
 * keychain.py:53): the object, or `********` for a caller that may not see secrets (neither
 * FULL_ADMIN nor KEYCHAIN_CREDENTIAL_WRITE, MW/main.py:834-845).
 */
const entryAttributes = () =>
  secret(
    z.union([
      z.object({ private_key: z.string().nullable(), public_key: z.string().nullable() }),
      z.object({
        host: z.string(),
        port: z.int(),
        username: z.string(),
        private_key: z.int(),
        remote_host_key: z.string(),
        connect_timeout: z.int(),
      }),
    ]),
  );

/** KeychainCredentialEntry (keychain.py:43-55), in its field order. */
export const keychainCredentialEntry = once(() =>
  z.object({
    id: z.int(),
    name: z.string().min(1),
    type: z.enum(KEYCHAIN_TYPES),
    attributes: entryAttributes(),
  }),
);
export type KeychainCredentialEntry = z.output<ReturnType<typeof keychainCredentialEntry>>;

/**
 * KeychainCredentialCreate (keychain.py:72-92): a plain union of the two create models, which
 * pydantic tries in order; each fixes `type` to its literal and forbids what its attributes lack.
 */
export const keychainCredentialCreate = once(() =>
  pydanticUnion({
    KeychainCredentialCreateSSHKeyPairEntry: z.strictObject({
      name: nonEmptyStr(),
      type: z.literal('SSH_KEY_PAIR'),
      attributes: sshKeyPair(),
    }),
    KeychainCredentialCreateSSHCredentialsEntry: z.strictObject({
      name: nonEmptyStr(),
      type: z.literal('SSH_CREDENTIALS'),
      attributes: sshCredentials(),
    }),
  }),
);

/**
 * KeychainCredentialUpdate (keychain.py:76-92): ForUpdateMetaclass, so `name` and `attributes`
 * optional and `type` excluded; the attributes model itself keeps its defaults (a key pair's
 * `{public_key}` is `{private_key: null, public_key}`).
 */
export const keychainCredentialUpdate = once(() =>
  pydanticUnion({
    KeychainCredentialUpdateSSHKeyPairEntry: z.strictObject({
      name: nonEmptyStr().optional(),
      attributes: sshKeyPair().optional(),
    }),
    KeychainCredentialUpdateSSHCredentialsEntry: z.strictObject({
      name: nonEmptyStr().optional(),
      attributes: sshCredentials().optional(),
    }),
  }),
);

/** UsedKeychainCredential (keychain.py:137-146). */
const usedKeychainCredential = once(() =>
  z.object({ title: z.string(), unbind_method: z.enum(['delete', 'disable']) }),
);

/**
 * HttpUrl (MW/api/base/types/string.py:60, pydantic's HttpUrl then `str`): an http or https URL,
 * kept as the string given. Its refusals are pydantic's own `url_parsing` and `url_scheme` errors,
 * which carry no `Value error, ` prefix.
 */
const httpUrl = () =>
  z.string().superRefine((value, ctx) => {
    let scheme: string;
    try {
      scheme = new URL(value).protocol;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'Input should be a valid URL, relative URL without a base',
        params: { verbatim: true },
      });
      return;
    }
    if (scheme !== 'http:' && scheme !== 'https:')
      ctx.addIssue({ code: 'custom', message: "URL scheme should be 'http' or 'https'", params: { verbatim: true } });
  });

/** KeychainCredentialRemoteSSHSemiautomaticSetup's fields (keychain.py:180-203) but `name` and `private_key`. */
const semiAutomaticFields = () => ({
  url: httpUrl(),
  verify_ssl: z.boolean().default(true),
  token: str().nullable().default(null),
  admin_username: str().default('root'),
  password: str().nullable().default(null),
  otp_token: str().nullable().default(null),
  username: str().default('root'),
  connect_timeout: z.int().default(10),
  sudo: z.boolean().default(false),
});

/** SSHCredentials without `private_key` (SetupSSHConnectionManualSetup, keychain.py:236-237). */
const manualSetup = once(() => sshCredentials().omit({ private_key: true }));

/** SetupSSHConnectionManual | SetupSSHConnectionSemiautomatic, discriminated by `setup_type` (keychain.py:240-266). */
export const setupSshConnectionOptions = once(() => {
  // Discriminator("generate_key") over two literals; tried as members here, each under its class name.
  const privateKey = pydanticUnion({
    KeychainCredentialSetupSSHConnectionKeyNew: z.strictObject({
      generate_key: z.literal(true).default(true),
      name: nonEmptyStr(),
    }),
    KeychainCredentialSetupSSHConnectionKeyExisting: z.strictObject({
      generate_key: z.literal(false).default(false),
      existing_key_id: z.int(),
    }),
  });
  return pydanticTaggedUnion(
    'setup_type',
    {
      MANUAL: z.strictObject({
        private_key: privateKey,
        connection_name: nonEmptyStr(),
        setup_type: z.literal('MANUAL'),
        manual_setup: manualSetup(),
      }),
      'SEMI-AUTOMATIC': z.strictObject({
        private_key: privateKey,
        connection_name: nonEmptyStr(),
        setup_type: z.literal('SEMI-AUTOMATIC'),
        semi_automatic_setup: z.strictObject(semiAutomaticFields()),
      }),
    },
    'MANUAL',
  );
});

const credentials = crud(keychainCredentialEntry, () => z.int(), {
  read: roles('KEYCHAIN_CREDENTIAL_READ'),
  write: roles('KEYCHAIN_CREDENTIAL_WRITE'),
});

const sshCredentialsEntry = () => keychainCredentialEntry().extend({ type: z.literal('SSH_CREDENTIALS') });

export const KEYCHAIN_SUMMARIES = {
  query:
    'List keychain credentials (SSH key pairs, SSH connections); attributes are `********` without KEYCHAIN_CREDENTIAL_WRITE.',
  get_instance: 'One keychain credential by id.',
  create:
    'Store an SSH key pair {name, type: SSH_KEY_PAIR, attributes: {private_key, public_key}} or an SSH connection {name, type: SSH_CREDENTIALS, attributes: {host, port, username, private_key: <key pair id>, remote_host_key, connect_timeout}}.',
  update: 'Change a keychain credential by id {name, attributes}; attributes are replaced whole.',
  delete: 'Delete a keychain credential by id {cascade: also delete or disable what uses it}.',
} as const;

export const keychainContract = service('keychaincredential', {
  query: credentials.query(KEYCHAIN_SUMMARIES.query),
  get_instance: credentials.get_instance(KEYCHAIN_SUMMARIES.get_instance),
  create: credentials.create(
    KEYCHAIN_SUMMARIES.create,
    'keychain_credential_create',
    keychainCredentialCreate,
    keychainCredentialEntry,
  ),
  update: credentials.update(
    KEYCHAIN_SUMMARIES.update,
    'keychain_credential_update',
    keychainCredentialUpdate,
    keychainCredentialEntry,
  ),
  // KeychainCredentialDeleteResult is None (keychain.py:129-130).
  delete: credentials.delete(KEYCHAIN_SUMMARIES.delete, () => z.null(), {
    options: {
      schema: once(() => z.strictObject({ cascade: z.boolean().default(false) })),
      default: () => ({ cascade: false }),
    },
  }),
  used_by: method({
    summary: 'What uses a keychain credential by id: [{title, unbind_method: delete|disable}].',
    access: roles('KEYCHAIN_CREDENTIAL_READ'),
    params: () => [{ name: 'id', schema: z.int() }],
    result: () => z.array(usedKeychainCredential()),
  }),
  generate_ssh_key_pair: method({
    summary: 'A new RSA key pair {private_key, public_key}, stored nowhere (for an SSH_KEY_PAIR create).',
    access: roles('KEYCHAIN_CREDENTIAL_WRITE'),
    params: () => [],
    result: () => z.object({ private_key: z.string(), public_key: z.string() }),
  }),
  remote_ssh_host_key_scan: method({
    summary:
      'The host keys a remote SSH server {host, port, connect_timeout} offers (emulated: another stor serve on loopback).',
    access: roles('KEYCHAIN_CREDENTIAL_WRITE'),
    params: () => [
      {
        name: 'keychain_remote_ssh_host_key_scan',
        schema: z.strictObject({
          host: nonEmptyStr(),
          port: z.int().default(22),
          connect_timeout: z.int().default(10),
        }),
      },
    ],
    result: () => z.string(),
  }),
  remote_ssh_semiautomatic_setup: method({
    summary: 'Pair with another TrueNAS over its API and store the SSH connection (not emulated).',
    access: roles('KEYCHAIN_CREDENTIAL_WRITE'),
    params: () => [
      {
        name: 'data',
        schema: z.strictObject({ name: nonEmptyStr(), ...semiAutomaticFields(), private_key: z.int() }),
      },
    ],
    result: () => sshCredentialsEntry(),
  }),
  setup_ssh_connection: method({
    summary:
      'Make an SSH connection in one call: a new or existing key pair, then the credentials (MANUAL; SEMI-AUTOMATIC is not emulated).',
    access: roles('KEYCHAIN_CREDENTIAL_WRITE'),
    params: () => [{ name: 'options', schema: setupSshConnectionOptions() }],
    result: () => sshCredentialsEntry(),
  }),
});
