import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { Wire } from './ssh-keys.js';

// Signing and verifying with SSH keys, in-process, for the emulator's rehearsal of a replication to
// another appliance (docs/REPLICATION.md): the source proves it holds an SSH_KEY_PAIR's private key
// as an SSH client does in publickey authentication (RFC 4252 §7), the target checks the signature
// against the user's authorized keys; the target proves it holds its host key (RFC 4253 §8). The
// signature algorithms are SSH's: Ed25519, RSA with SHA-256 (rsa-sha2-256, RFC 8332), ECDSA with
// the curve's hash (RFC 5656 §6.2.1).

const ECDSA: Record<string, { crv: string; hash: string }> = {
  'ecdsa-sha2-nistp256': { crv: 'P-256', hash: 'sha256' },
  'ecdsa-sha2-nistp384': { crv: 'P-384', hash: 'sha384' },
  'ecdsa-sha2-nistp521': { crv: 'P-521', hash: 'sha512' },
};

/** An mpint's magnitude without the sign byte, as JWK wants it. */
const unsigned = (b: Buffer) => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
};
const b64u = (b: Buffer) => unsigned(b).toString('base64url');
const big = (b: Buffer) => BigInt(`0x${unsigned(b).toString('hex') || '0'}`);
const bigB64u = (n: bigint) => {
  const hex = n.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
};
/** An EC point (uncompressed, 04 || x || y) as JWK's x and y. */
const point = (q: Buffer) => {
  const size = (q.length - 1) / 2;
  return { x: q.subarray(1, 1 + size).toString('base64url'), y: q.subarray(1 + size).toString('base64url') };
};

/** An SSH key that can sign: its type (for the algorithm) and node's key. */
export interface SshSigningKey {
  readonly type: string;
  readonly key: KeyObject;
}

/** The private key of an unencrypted openssh-key-v1 file (PROTOCOL.key) or a PEM OpenSSL reads; throws on anything else. */
export function sshPrivateKey(text: string): SshSigningKey {
  if (!text.includes('-----BEGIN OPENSSH PRIVATE KEY-----')) {
    const key = createPrivateKey({ key: text, format: 'pem' });
    const jwk = key.export({ format: 'jwk' });
    const ecdsa = Object.entries(ECDSA).find(([, c]) => c.crv === jwk.crv);
    return { type: jwk.kty === 'RSA' ? 'ssh-rsa' : ecdsa ? ecdsa[0] : 'ssh-ed25519', key };
  }
  const body = text.slice(
    text.indexOf('-----BEGIN OPENSSH PRIVATE KEY-----') + 35,
    text.indexOf('-----END OPENSSH PRIVATE KEY-----'),
  );
  const w = new Wire(Buffer.from(body.replace(/\s+/g, ''), 'base64').subarray(15));
  if (w.text() !== 'none') throw new Error('the private key is encrypted');
  w.text();
  w.string();
  w.uint32();
  w.string();
  const p = new Wire(w.string());
  p.uint32();
  p.uint32();
  const type = p.text();
  if (type === 'ssh-ed25519') {
    const pk = p.string();
    const sk = p.string();
    const jwk = {
      kty: 'OKP',
      crv: 'Ed25519',
      x: pk.toString('base64url'),
      d: sk.subarray(0, 32).toString('base64url'),
    };
    return { type, key: createPrivateKey({ key: jwk, format: 'jwk' }) };
  }
  if (type === 'ssh-rsa') {
    const [n, e, d, iqmp, pp, q] = Array.from({ length: 6 }, () => p.string());
    const [dn, pn, qn] = [big(d!), big(pp!), big(q!)];
    const jwk = {
      kty: 'RSA',
      n: b64u(n!),
      e: b64u(e!),
      d: b64u(d!),
      p: b64u(pp!),
      q: b64u(q!),
      dp: bigB64u(dn % (pn - 1n)),
      dq: bigB64u(dn % (qn - 1n)),
      qi: b64u(iqmp!),
    };
    return { type, key: createPrivateKey({ key: jwk, format: 'jwk' }) };
  }
  const curve = ECDSA[type];
  if (curve) {
    p.text();
    const q = p.string();
    const d = unsigned(p.string());
    const size = (q.length - 1) / 2;
    const padded = Buffer.concat([Buffer.alloc(Math.max(0, size - d.length)), d]);
    const jwk = { kty: 'EC', crv: curve.crv, ...point(q), d: padded.toString('base64url') };
    return { type, key: createPrivateKey({ key: jwk, format: 'jwk' }) };
  }
  throw new Error(`unsupported key type ${type}`);
}

/** The node key of a public blob (`type base64` of an authorized_keys or known_hosts line), or null. */
function publicKeyOfBlob(type: string, blob: Buffer): KeyObject | null {
  try {
    const w = new Wire(blob);
    if (w.text() !== type) return null;
    if (type === 'ssh-ed25519')
      return createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: w.string().toString('base64url') },
        format: 'jwk',
      });
    if (type === 'ssh-rsa') {
      const e = w.string();
      const n = w.string();
      return createPublicKey({ key: { kty: 'RSA', n: b64u(n), e: b64u(e) }, format: 'jwk' });
    }
    const curve = ECDSA[type];
    if (curve) {
      w.text();
      return createPublicKey({ key: { kty: 'EC', crv: curve.crv, ...point(w.string()) }, format: 'jwk' });
    }
  } catch {
    return null;
  }
  return null;
}

/** Every `type base64` pair in `text` (authorized_keys lines with options, known_hosts lines with host lists). */
export function publicKeysIn(text: string): { type: string; blob: Buffer }[] {
  const found: { type: string; blob: Buffer }[] = [];
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0]?.startsWith('#')) continue;
    for (let i = 0; i + 1 < words.length; i++)
      if (/^(ssh-|ecdsa-)/.test(words[i]!) && /^[A-Za-z0-9+/]+={0,2}$/.test(words[i + 1]!))
        found.push({ type: words[i]!, blob: Buffer.from(words[i + 1]!, 'base64') });
  }
  return found;
}

const hashOf = (type: string) => (type === 'ssh-ed25519' ? null : type === 'ssh-rsa' ? 'sha256' : ECDSA[type]!.hash);

export function sshSign(key: SshSigningKey, data: Buffer): Buffer {
  return sign(hashOf(key.type), data, key.key);
}

/** Whether `signature` over `data` is by the key of `type`/`blob`. */
export function sshVerify(type: string, blob: Buffer, data: Buffer, signature: Buffer): boolean {
  const key = publicKeyOfBlob(type, blob);
  if (!key || !(type === 'ssh-ed25519' || type === 'ssh-rsa' || type in ECDSA)) return false;
  try {
    return verify(hashOf(type), data, key, signature);
  } catch {
    return false;
  }
}

/** The public blob (RFC 4253 §6.6) of a signing key: what an authorized_keys line holds in base64. */
export function publicBlobOf(key: SshSigningKey): Buffer {
  const s = (b: Buffer | string) => {
    const data = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    const n = Buffer.alloc(4);
    n.writeUInt32BE(data.length);
    return Buffer.concat([n, data]);
  };
  const mp = (b64url: string | undefined) => {
    const raw = unsigned(Buffer.from(b64url ?? '', 'base64url'));
    return s(raw[0]! & 0x80 ? Buffer.concat([Buffer.of(0), raw]) : raw);
  };
  const jwk = createPublicKey(key.key).export({ format: 'jwk' });
  if (key.type === 'ssh-ed25519') return Buffer.concat([s(key.type), s(Buffer.from(jwk.x!, 'base64url'))]);
  if (key.type === 'ssh-rsa') return Buffer.concat([s(key.type), mp(jwk.e), mp(jwk.n)]);
  const q = Buffer.concat([Buffer.of(4), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  return Buffer.concat([s(key.type), s(key.type.slice('ecdsa-sha2-'.length)), s(q)]);
}
