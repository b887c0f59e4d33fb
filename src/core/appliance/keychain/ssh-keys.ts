import { createPrivateKey, generateKeyPairSync, randomBytes, randomInt, type JsonWebKey } from 'node:crypto';

// What the appliance asks of OpenSSH's ssh-keygen (9.2p1 on 25.10's Debian 12, whose words these
// are), done in-process: `ssh-keygen -y -f` (a private key's public key, MW/plugins/keychain.py:143-159),
// `ssh-keygen -l -f` (is it a public key, :171-180), `ssh-keygen -t rsa -N "" -q` (a new pair,
// :479-490). Nothing here writes a key anywhere or puts one in a message.

const OPENSSH_BEGIN = '-----BEGIN OPENSSH PRIVATE KEY-----';
const OPENSSH_END = '-----END OPENSSH PRIVATE KEY-----';
const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');

/** The key types ssh-keygen names, with what their public blob holds after the type. */
const ECDSA_CURVES: Record<string, { curve: string; jwk: string; size: number }> = {
  'ecdsa-sha2-nistp256': { curve: 'nistp256', jwk: 'P-256', size: 32 },
  'ecdsa-sha2-nistp384': { curve: 'nistp384', jwk: 'P-384', size: 48 },
  'ecdsa-sha2-nistp521': { curve: 'nistp521', jwk: 'P-521', size: 66 },
};

/** A reader of the SSH wire format (RFC 4251 §5): uint32 and length-prefixed strings. */
export class Wire {
  private at = 0;
  constructor(private readonly buf: Buffer) {}
  get done(): boolean {
    return this.at >= this.buf.length;
  }
  uint32(): number {
    if (this.at + 4 > this.buf.length) throw new Error('incomplete message');
    const v = this.buf.readUInt32BE(this.at);
    this.at += 4;
    return v;
  }
  string(): Buffer {
    const n = this.uint32();
    if (this.at + n > this.buf.length) throw new Error('incomplete message');
    const v = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  text(): string {
    return this.string().toString('latin1');
  }
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const sshString = (b: Buffer | string) => {
  const data = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
  return Buffer.concat([u32(data.length), data]);
};
/** An mpint (RFC 4251 §5) from unsigned big-endian bytes: no leading zeros, one added when the top bit is set. */
const mpint = (unsigned: Buffer) => {
  let i = 0;
  while (i < unsigned.length && unsigned[i] === 0) i++;
  const trimmed = unsigned.subarray(i);
  return sshString(trimmed.length > 0 && trimmed[0]! & 0x80 ? Buffer.concat([Buffer.of(0), trimmed]) : trimmed);
};
const b64url = (s: string | undefined) => Buffer.from(s ?? '', 'base64url');

/** Whether `blob` is a well-formed public key blob of `type` (sshkey_from_blob's checks on its fields). */
function isPublicBlob(type: string, blob: Buffer): boolean {
  try {
    const w = new Wire(blob);
    if (w.text() !== type) return false;
    if (type === 'ssh-ed25519') {
      if (w.string().length !== 32) return false;
    } else if (type === 'ssh-rsa') {
      w.string();
      w.string();
    } else if (type in ECDSA_CURVES) {
      if (w.text() !== ECDSA_CURVES[type]!.curve) return false;
      w.string();
    } else if (type === 'ssh-dss') {
      for (let i = 0; i < 4; i++) w.string();
    } else return false;
    return w.done;
  } catch {
    return false;
  }
}

/** The public key line of an SSH public blob, as ssh-keygen prints it: the comment after it when there is one. */
const publicLine = (blob: Buffer, comment: string) => {
  const type = new Wire(blob).text();
  return `${type} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}\n`;
};

/** The public blob and comment of an unencrypted openssh-key-v1 private key (PROTOCOL.key). */
function readOpenSsh(text: string): { blob: Buffer; comment: string } | 'encrypted' {
  const body = text.slice(text.indexOf(OPENSSH_BEGIN) + OPENSSH_BEGIN.length, text.indexOf(OPENSSH_END));
  const raw = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (!raw.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('invalid format');
  const w = new Wire(raw.subarray(MAGIC.length));
  const cipher = w.text();
  w.text(); // kdfname
  w.string(); // kdfoptions
  if (w.uint32() !== 1) throw new Error('invalid format');
  const blob = w.string();
  const secret = w.string();
  // A cipher other than none asks for a passphrase (ssh-keygen.c load_identity).
  if (cipher !== 'none') return 'encrypted';
  const p = new Wire(secret);
  // Check bytes that differ are a wrong passphrase to OpenSSH, so it asks for one too.
  if (p.uint32() !== p.uint32()) return 'encrypted';
  const type = p.text();
  if (!isPublicBlob(type, blob)) throw new Error('invalid format');
  const pub = new Wire(blob);
  pub.text();
  if (type === 'ssh-ed25519') {
    const pk = p.string();
    const sk = p.string();
    if (!pk.equals(pub.string()) || sk.length !== 64 || !sk.subarray(32).equals(pk)) throw new Error('invalid format');
  } else if (type === 'ssh-rsa') {
    const n = p.string();
    const e = p.string();
    if (!e.equals(pub.string()) || !n.equals(pub.string())) throw new Error('invalid format');
    for (let i = 0; i < 4; i++) p.string(); // d, iqmp, p, q
  } else if (type in ECDSA_CURVES) {
    if (p.text() !== pub.text() || !p.string().equals(pub.string())) throw new Error('invalid format');
    p.string(); // the private scalar
  } else {
    for (let i = 0; i < 5; i++) p.string(); // ssh-dss: p, q, g, y, x
  }
  return { blob, comment: p.text() };
}

/** The public blob of a PEM private key OpenSSL reads (PKCS#1 RSA, SEC1 EC, PKCS#8 of those): no comment. */
function readPem(text: string): Buffer | 'encrypted' {
  if (/Proc-Type:\s*4,ENCRYPTED/.test(text) || text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----')) {
    return 'encrypted';
  }
  let jwk: JsonWebKey;
  try {
    jwk = createPrivateKey({ key: text, format: 'pem' }).export({ format: 'jwk' });
  } catch {
    throw new Error('error in libcrypto');
  }
  if (jwk.kty === 'RSA') return Buffer.concat([sshString('ssh-rsa'), mpint(b64url(jwk.e)), mpint(b64url(jwk.n))]);
  const ecdsa = Object.entries(ECDSA_CURVES).find(([, c]) => c.jwk === jwk.crv);
  if (jwk.kty === 'EC' && ecdsa) {
    const [type, { curve }] = ecdsa;
    const q = Buffer.concat([Buffer.of(4), b64url(jwk.x), b64url(jwk.y)]);
    return Buffer.concat([sshString(type), sshString(curve), sshString(q)]);
  }
  // OpenSSH 9.2 reads no Ed25519 key from PEM.
  throw new Error('invalid format');
}

/** OpenSSH's words (ssh_err) for what can go wrong reading a key here. */
const REASONS = new Set(['error in libcrypto', 'invalid format', 'incomplete message']);

const TEMP_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789_';

/** A name as Python's tempfile.NamedTemporaryFile gives one: /tmp/tmp and eight characters. */
function tempName(): string {
  let name = '/tmp/tmp';
  for (let i = 0; i < 8; i++) name += TEMP_CHARS[randomInt(TEMP_CHARS.length)];
  return name;
}

/**
 * `ssh-keygen -y -f <file>` over a private key: the public key line it prints, or `encrypted` when
 * it would ask for a passphrase, or the stderr it ends with (`Load key "/tmp/tmpXXXXXXXX": <why>`,
 * the file being the temporary one the middleware wrote).
 */
export function publicKeyOf(privateKey: string): { publicKey: string } | { encrypted: true } | { stderr: string } {
  try {
    // sshkey_parse_private_fileblob_type (OpenSSH 9.2 sshkey.c, KEY_UNSPEC): the openssh-key-v1
    // reader first, which wants the file to begin with its marker line (private2_uudecode); what
    // it refuses, but a wrong passphrase, goes on to the PEM reader below.
    if (privateKey.startsWith(`${OPENSSH_BEGIN}\n`) && privateKey.includes(`\n${OPENSSH_END}\n`)) {
      let read: ReturnType<typeof readOpenSsh> | null = null;
      try {
        read = readOpenSsh(privateKey);
      } catch {
        // Not an openssh-key-v1 key it reads: the PEM reader's turn.
      }
      if (read === 'encrypted') return { encrypted: true };
      if (read !== null) return { publicKey: publicLine(read.blob, read.comment) };
    }
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey)) throw new Error('error in libcrypto');
    const blob = readPem(privateKey);
    return blob === 'encrypted' ? { encrypted: true } : { publicKey: publicLine(blob, '') };
  } catch (err) {
    const why = err instanceof Error && REASONS.has(err.message) ? err.message : 'invalid format';
    return { stderr: `Load key "${tempName()}": ${why}\n` };
  }
}

const KEY_TYPES = new Set(['ssh-ed25519', 'ssh-rsa', 'ssh-dss', ...Object.keys(ECDSA_CURVES)]);

/**
 * Whether `ssh-keygen -l -f <file>` finds a key in `text`: a private key it can read, or any line
 * with `<type> <base64 blob>` in it (after authorized_keys options or a known_hosts host list, which
 * it skips; a line it cannot read is passed over).
 */
export function isPublicKeyFile(text: string): boolean {
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0]?.startsWith('#')) continue;
    for (let i = 0; i + 1 < words.length; i++) {
      const [type, data] = [words[i]!, words[i + 1]!];
      if (KEY_TYPES.has(type) && /^[A-Za-z0-9+/]+={0,2}$/.test(data) && isPublicBlob(type, Buffer.from(data, 'base64')))
        return true;
    }
  }
  return 'publicKey' in publicKeyOf(text);
}

/** The first two words of a public key line (`_normalize_public_key`, MW/plugins/keychain.py:187-188). */
export const normalizePublicKey = (publicKey: string) => publicKey.trim().split(/\s+/).slice(0, 2).join(' ');

/** Base64 wrapped at 70 columns, as OpenSSH armours a private key (sshbuf_dtob64 with wrap). */
const wrap70 = (b64: string) => b64.match(/.{1,70}/g)!.join('\n');

/** ssh-keygen 9.2's default RSA size (ssh-keygen.c DEFAULT_BITS). */
export const RSA_DEFAULT_BITS = 3072;

/**
 * The size of a new RSA key: RSA_DEFAULT_BITS, unless STOR_TEST_RSA_BITS lowers it. The test suite
 * sets it (test/helpers/cheap-hashes.ts) for the emulators it runs, whose keys guard nothing: a
 * 3072-bit key costs 0.3 to 1.5 s of CPU to find (its primes are random), a 1024-bit one about
 * 20 ms. Only 1024 or 2048 is taken (1024 is the least OpenSSH reads, SSH_RSA_MINIMUM_MODULUS_SIZE),
 * so it can lower the cost, never raise it; read at each key, from the environment of the process
 * that makes it.
 */
export function rsaBits(): number {
  const asked = Number(process.env.STOR_TEST_RSA_BITS);
  return asked === 1024 || asked === 2048 ? asked : RSA_DEFAULT_BITS;
}

/**
 * `ssh-keygen -t rsa -f key -N "" -q` (MW/plugins/keychain.py:479-490): a 3072-bit RSA key (9.2's
 * default size; `rsaBits`) in the openssh-key-v1 format, unencrypted, and its public key line, both
 * with the comment `user@host` and a final newline as the two files end.
 */
export function generateRsaKeyPair(comment: string): { private_key: string; public_key: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: rsaBits(), publicExponent: 65537 });
  const jwk = privateKey.export({ format: 'jwk' });
  const [n, e, d, p, q, iqmp] = [jwk.n, jwk.e, jwk.d, jwk.p, jwk.q, jwk.qi].map(b64url) as Buffer[];
  const blob = Buffer.concat([sshString('ssh-rsa'), mpint(e!), mpint(n!)]);
  const check = randomBytes(4);
  let secret = Buffer.concat([
    check,
    check,
    sshString('ssh-rsa'),
    mpint(n!),
    mpint(e!),
    mpint(d!),
    mpint(iqmp!),
    mpint(p!),
    mpint(q!),
    sshString(comment),
  ]);
  // Padded to the cipher's block size (8 for none) with 1, 2, 3, … (PROTOCOL.key).
  const pad = Buffer.from(Array.from({ length: (8 - (secret.length % 8)) % 8 }, (_, i) => i + 1));
  secret = Buffer.concat([secret, pad]);
  const raw = Buffer.concat([
    MAGIC,
    sshString('none'),
    sshString('none'),
    sshString(''),
    u32(1),
    sshString(blob),
    sshString(secret),
  ]);
  return {
    private_key: `${OPENSSH_BEGIN}\n${wrap70(raw.toString('base64'))}\n${OPENSSH_END}\n`,
    public_key: publicLine(blob, comment),
  };
}
