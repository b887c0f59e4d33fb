import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  authMessage,
  buildClientFinal,
  buildClientFirst,
  buildServerFirst,
  clientProof,
  keysFromSaltedPassword,
  newNonce,
  parseClientFinal,
  parseClientFirst,
  parseServerFirst,
  proofMatches,
  saltedPassword,
  scramAuthData,
  serverFinalMatches,
  serverSignature,
  tlsServerEndPoint,
  type ScramHash,
} from '../../../src/core/net/scram.js';
import { selfSignedCert } from '../../helpers/self-signed.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** One RFC exchange run through the module's steps: proof and server signature must be the RFC's. */
async function exchange(
  hash: ScramHash,
  v: { bare: string; serverFirst: string; salt: string; i: number; withoutProof: string },
) {
  const keys = keysFromSaltedPassword(await saltedPassword('pencil', Buffer.from(v.salt, 'base64'), v.i, hash), hash);
  const message = authMessage(v.bare, v.serverFirst, v.withoutProof);
  return {
    keys,
    message,
    proof: clientProof(keys, message, hash).toString('base64'),
    verifier: serverSignature(keys.serverKey, message, hash).toString('base64'),
  };
}

describe('SCRAM steps against the RFC test vectors', () => {
  it('RFC 5802 §5 (SCRAM-SHA-1): the same proof and server signature', async () => {
    const got = await exchange('sha1', {
      bare: 'n=user,r=fyko+d2lbbFgONRv9qkxdawL',
      serverFirst: 'r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096',
      salt: 'QSXCR+Q6sek8bf92',
      i: 4096,
      withoutProof: 'c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j',
    });
    expect(got.proof).toBe('v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=');
    expect(got.verifier).toBe('rmF9pqV8S7suAoZWja4dJRkFsKQ=');
    expect(proofMatches(got.keys.storedKey, got.message, Buffer.from(got.proof, 'base64'), 'sha1')).toBe(true);
  });

  it('RFC 7677 §3 (SCRAM-SHA-256): the same proof and server signature', async () => {
    const got = await exchange('sha256', {
      bare: 'n=user,r=rOprNGfwEbeRWgbNEkqO',
      serverFirst: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
      salt: 'W22ZaJ0SNY7soEsUEjb6gQ==',
      i: 4096,
      withoutProof: 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
    });
    expect(got.proof).toBe('dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    expect(got.verifier).toBe('6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  });

  it('SHA-512 keys agree with an independent computation (Python hashlib/hmac) where python3 exists', async (ctx) => {
    let python: string;
    try {
      python = execFileSync(
        'python3',
        [
          '-c',
          [
            'import hashlib, hmac, base64',
            "sp = hashlib.pbkdf2_hmac('sha512', b'k3y', b'0123456789abcdef', 50000)",
            "ck = hmac.new(sp, b'Client Key', 'sha512').digest()",
            "print(base64.b64encode(ck).decode(), base64.b64encode(hashlib.sha512(ck).digest()).decode(), base64.b64encode(hmac.new(sp, b'Server Key', 'sha512').digest()).decode())",
          ].join('\n'),
        ],
        { encoding: 'utf8' },
      ).trim();
    } catch {
      ctx.skip();
      return;
    }
    const data = await scramAuthData('k3y', Buffer.from('0123456789abcdef'), 50_000);
    expect(`${data.client_key} ${data.stored_key} ${data.server_key}`).toBe(python);
  });
});

describe('TrueNAS 26 message flow', () => {
  it('a full unbound exchange: the server accepts the proof and the client accepts the server signature', async () => {
    const server = await scramAuthData('secret', undefined, 50_000);
    const keys = keysFromSaltedPassword(await saltedPassword('secret', Buffer.from(server.salt, 'base64'), 50_000));
    const nonce = newNonce();
    const first = buildClientFirst('root', 7, nonce, false);
    expect(first.rfc).toMatch(/^n,,n=root:7,r=[A-Za-z0-9+/]{43}=$/);
    const parsed = parseClientFirst(first.rfc);
    expect(parsed).toMatchObject({ username: 'root', apiKeyId: 7, gs2Header: 'n,,', bare: first.bare });
    const sFirst = buildServerFirst(parsed.nonce, Buffer.from(server.salt, 'base64'), server.iterations);
    const seen = parseServerFirst(sFirst.rfc, nonce);
    const final = buildClientFinal(first.gs2Header, null, seen.nonce, first.bare, sFirst.rfc, keys);
    expect(final.rfc.startsWith('c=biws,')).toBe(true);
    const cf = parseClientFinal(final.rfc);
    const message = authMessage(parsed.bare, sFirst.rfc, cf.withoutProof);
    expect(proofMatches(Buffer.from(server.stored_key, 'base64'), message, cf.proof)).toBe(true);
    const v = `v=${serverSignature(Buffer.from(server.server_key, 'base64'), message).toString('base64')}`;
    expect(serverFinalMatches(v, keys.serverKey, final.authMessage)).toBe(true);
    // A proof from the wrong secret, and a server that does not know the key, are both caught.
    const wrong = keysFromSaltedPassword(await saltedPassword('other', Buffer.from(server.salt, 'base64'), 50_000));
    const bad = parseClientFinal(
      buildClientFinal(first.gs2Header, null, seen.nonce, first.bare, sFirst.rfc, wrong).rfc,
    );
    expect(proofMatches(Buffer.from(server.stored_key, 'base64'), message, bad.proof)).toBe(false);
    expect(
      serverFinalMatches(
        `v=${serverSignature(wrong.serverKey, message).toString('base64')}`,
        keys.serverKey,
        final.authMessage,
      ),
    ).toBe(false);
  });

  it('the client refuses a server-first outside 26 bounds or not extending its nonce', () => {
    const nonce = newNonce();
    const salt = Buffer.alloc(16, 1);
    expect(() => parseServerFirst(buildServerFirst(nonce, salt, 49_999).rfc, nonce)).toThrow(/iteration count/);
    expect(() => parseServerFirst(buildServerFirst(nonce, salt, 5_000_001).rfc, nonce)).toThrow(/iteration count/);
    expect(() => parseServerFirst(buildServerFirst(newNonce(), salt, 500_000).rfc, nonce)).toThrow(/nonce/);
    expect(parseServerFirst(buildServerFirst(nonce, salt, 5_000_000).rfc, nonce).iterations).toBe(5_000_000);
  });

  it('client-first parsing: the channel-binding header, and malformed messages refused', () => {
    const bound = buildClientFirst('admin', 3, newNonce(), true);
    expect(bound.rfc.startsWith('p=tls-server-end-point,,n=admin:3,r=')).toBe(true);
    expect(parseClientFirst(bound.rfc).gs2Flag).toBe('p=tls-server-end-point');
    expect(() => parseClientFirst('n,,n=root:1,r=short')).toThrow();
    expect(() => parseClientFirst('x,,n=root:1,r=AAAA')).toThrow();
    expect(() => parseClientFirst('n,a=admin,n=root:1,r=AAAA')).toThrow();
  });
});

describe('tls-server-end-point (RFC 5929 §4.1)', () => {
  it('is SHA-256 of the DER for a sha256WithRSAEncryption certificate', async () => {
    const dir = tempDir();
    const { cert } = selfSignedCert(dir);
    const der = new X509Certificate(readFileSync(cert)).raw;
    expect(tlsServerEndPoint(der).equals(createHash('sha256').update(der).digest())).toBe(true);
  });

  it('follows the signature hash: SHA-384 for an ecdsa-with-SHA384 certificate, and refuses Ed25519', async () => {
    const dir = tempDir();
    const make = (args: string[], name: string) => {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          ...args,
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=x',
          '-keyout',
          `${dir}/${name}.key`,
          '-out',
          `${dir}/${name}.pem`,
        ],
        { stdio: 'ignore' },
      );
      return new X509Certificate(readFileSync(`${dir}/${name}.pem`)).raw;
    };
    const ec = make(['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384', '-sha384'], 'ec');
    expect(tlsServerEndPoint(ec).equals(createHash('sha384').update(ec).digest())).toBe(true);
    const ed = make(['-newkey', 'ed25519'], 'ed');
    expect(() => tlsServerEndPoint(ed)).toThrow(/undefined/);
  });
});
