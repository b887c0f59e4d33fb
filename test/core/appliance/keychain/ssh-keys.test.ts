/**
 * ssh-keygen's reading and making of keys, done in-process (src/core/appliance/keychain/ssh-keys.ts),
 * against what OpenSSH 9.2p1's ssh-keygen (25.10's, Debian 12) prints for the same keys. Where
 * ssh-keygen is on this machine, a generated pair is also read back by it.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { generateRsaKeyPair, isPublicKeyFile, publicKeyOf } from '../../../../src/core/appliance/keychain/ssh-keys.js';
import {
  ED25519_ENCRYPTED,
  ED25519_PRIVATE,
  ED25519_PUBLIC,
  OTHER_PUBLIC,
  rsaModulusBits,
} from '../../../helpers/ssh-key-fixtures.js';
import { tempDir } from '../../../helpers/temp-dir.js';

/** `openssl ecparam -genkey -name prime256v1 -noout` (SEC1 PEM), and `ssh-keygen -y -f` of it. */
const EC_PEM = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIFsSlFj1j1rRwlW13UZQxe67CMMeaXzxaslXz2zpx+HpoAoGCCqGSM49
AwEHoUQDQgAED/hy+0pqV5akxHNxi4k29CYIYbPKuJS8cFUwUTZdNbiTd6QDzOAe
tZwXwWlv3U38bXR4SDzasaTKzpre5j00Rw==
-----END EC PRIVATE KEY-----
`;
const EC_PUBLIC =
  'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBA/4cvtKaleWpMRzcYuJNvQmCGGzyriUvHBVMFE2XTW4k3ekA8zgHrWcF8Fpb91N/G10eEg82rGkys6a3uY9NEc=\n';

/** `openssl genpkey -algorithm ed25519`: PKCS#8, which OpenSSH 9.2 does not read (`invalid format`). */
const ED25519_PKCS8 = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEILzEZHRHDlGnJRZyeUdba4yr517TjLJDamyiNl0j6Khg
-----END PRIVATE KEY-----
`;

const loadKeyError = (why: string) => new RegExp(`^Load key "/tmp/tmp[a-z0-9_]{8}": ${why}\\n$`);

describe('ssh-keygen -y, in-process', () => {
  it('an OpenSSH Ed25519 key gives its public key with its comment, a SEC1 EC key its own without one', () => {
    expect(publicKeyOf(ED25519_PRIVATE)).toEqual({ publicKey: ED25519_PUBLIC });
    expect(publicKeyOf(EC_PEM)).toEqual({ publicKey: EC_PUBLIC });
  });

  it('an encrypted key is one it would ask a passphrase for', () => {
    expect(publicKeyOf(ED25519_ENCRYPTED)).toEqual({ encrypted: true });
  });

  it('fails as ssh-keygen words it: no key at all, an Ed25519 PKCS#8 key', () => {
    expect(publicKeyOf('not a key\n')).toEqual({ stderr: expect.stringMatching(loadKeyError('error in libcrypto')) });
    expect(publicKeyOf(ED25519_PKCS8)).toEqual({ stderr: expect.stringMatching(loadKeyError('invalid format')) });
  });

  // sshkey_parse_private_fileblob_type (OpenSSH 9.2 sshkey.c, KEY_UNSPEC): whatever the
  // openssh-key-v1 reader refuses but a wrong passphrase goes on to the PEM reader, and OpenSSL
  // reads no OPENSSH armour: "error in libcrypto", as 9.2p1's ssh-keygen -y prints for each of these.
  it('an OpenSSH key it cannot read is worded by the PEM reader after it: cut, corrupt, 1 MiB of junk, CRLF lines, text before it', () => {
    const lines = ED25519_PRIVATE.split('\n');
    const libcrypto = { stderr: expect.stringMatching(loadKeyError('error in libcrypto')) };
    const cut = [...lines.slice(0, 3), ...lines.slice(-2)].join('\n');
    expect(publicKeyOf(cut)).toEqual(libcrypto);
    expect(publicKeyOf(ED25519_PRIVATE.replace(lines[2]!, 'A'.repeat(lines[2]!.length)))).toEqual(libcrypto);
    const huge = 'QUFB'
      .repeat(262144)
      .match(/.{1,70}/g)!
      .join('\n');
    expect(publicKeyOf(`${lines[0]}\n${huge}\n${lines.at(-2)}\n`)).toEqual(libcrypto);
    // private2_uudecode wants the file to begin with the marker and its "\n".
    expect(publicKeyOf(ED25519_PRIVATE.replace(/\n/g, '\r\n'))).toEqual(libcrypto);
    expect(publicKeyOf(`comment\n${ED25519_PRIVATE}`)).toEqual(libcrypto);
    expect(
      publicKeyOf(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37 + 11) % 256)).toString('latin1')),
    ).toEqual(libcrypto);
  });
});

describe('ssh-keygen -l, in-process', () => {
  it('reads a public key line, one after authorized_keys options or comment lines, and a private key', () => {
    expect(isPublicKeyFile(OTHER_PUBLIC)).toBe(true);
    expect(isPublicKeyFile(`from="10.0.0.1" ${OTHER_PUBLIC}`)).toBe(true);
    expect(isPublicKeyFile(`# mine\n\ngarbage\n${EC_PUBLIC}`)).toBe(true);
    expect(isPublicKeyFile(ED25519_PRIVATE)).toBe(true);
  });

  it('refuses text with no key in it and a key whose blob is cut', () => {
    expect(isPublicKeyFile('garbage')).toBe(false);
    expect(isPublicKeyFile('ssh-ed25519 AAAA')).toBe(false);
    expect(isPublicKeyFile(OTHER_PUBLIC.slice(0, 40))).toBe(false);
  });
});

describe('ssh-keygen -t rsa, in-process', () => {
  // One pair at ssh-keygen's own size, not the suite's cheaper one (test/helpers/cheap-hashes.ts),
  // made once for both tests: each reads the same pair back its own way, and a 3072-bit key is up
  // to 1.5 s of CPU to find.
  let made: ReturnType<typeof generateRsaKeyPair> | undefined;
  const fullSizePair = () => {
    if (made) return made;
    vi.stubEnv('STOR_TEST_RSA_BITS', undefined);
    try {
      return (made = generateRsaKeyPair('root@test'));
    } finally {
      vi.unstubAllEnvs();
    }
  };

  it('makes a 3072-bit RSA pair whose private key gives back its public key', () => {
    const pair = fullSizePair();
    expect(rsaModulusBits(pair.public_key)).toBe(3072);
    expect(publicKeyOf(pair.private_key)).toEqual({ publicKey: pair.public_key });
    expect(pair.public_key.endsWith(' root@test\n')).toBe(true);
  });

  it('makes a pair OpenSSH’s own ssh-keygen reads back to the same public key', (ctx) => {
    const pair = fullSizePair();
    const file = join(tempDir(), 'key');
    writeFileSync(file, pair.private_key);
    chmodSync(file, 0o600);
    let printed: string;
    try {
      printed = execFileSync('ssh-keygen', ['-y', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ctx.skip('no ssh-keygen on this machine');
      throw err;
    }
    expect(printed).toBe(pair.public_key);
  });
});
