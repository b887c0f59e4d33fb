import { createHash, createHmac, pbkdf2, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/*
 * SCRAM-SHA-512 (RFC 5802 §3, §5, §7; RFC 7677 for the hash-family pattern) as TrueNAS 26 speaks
 * it for API keys, with the RFC 5929 `tls-server-end-point` channel binding. One module for both
 * ends: the emulator's server side (appliance/session/scram-login.ts) and the client's login
 * (transport/login-strategies.ts). No npm package fits (docs/REMOTE.md "SCRAM login (TrueNAS 26)"), so
 * this is node:crypto only: pbkdf2, HMAC-SHA-512, SHA-512, timingSafeEqual.
 *
 * TrueNAS's dialect, from docs/source/accounts/scram_authentication.rst (stable/26) and the
 * official client's pure-Python fallback (truenas_api_client/py_scram/, stable/26):
 * - the SCRAM username is `<user>:<api key id>` (py_scram/client_first.py:21-25);
 * - the password is the key material after `<id>-` (truenas_api_client/auth_api_key.py:371-373);
 * - nonces are 32 random bytes, base64; the server's `r=` is base64(client bytes + 32 more), so
 *   the combined nonce is 64 bytes (py_scram/server_first.py:53-55, 110-115);
 * - the salt is 16 bytes, iterations 500,000 by default and accepted in [50,000, 5,000,000]
 *   (py_scram/scram_crypto.py:34-37, MW/utils/crypto.py:90-94 at stable/26).
 */

export const SCRAM_MIN_ITERATIONS = 50_000;
export const SCRAM_MAX_ITERATIONS = 5_000_000;
export const SCRAM_DEFAULT_ITERATIONS = 500_000;
/**
 * The iterations of new SCRAM data: 500,000 as 26 makes them, unless STOR_TEST_SCRAM_ITERATIONS
 * lowers them. The test suite sets it (vitest.config.ts, test/helpers/bin.ts): every login to an
 * emulated 26 runs PBKDF2 at the count the server gives, ≈0.4 s a side at 500,000. Only a count in
 * [SCRAM_MIN_ITERATIONS, default) is taken, so it can lower the cost, never raise it, nor go below
 * what a client accepts; read at each use, from the environment of the process making the data.
 */
export function newDataIterations(): number {
  const asked = Number(process.env.STOR_TEST_SCRAM_ITERATIONS);
  return Number.isInteger(asked) && asked >= SCRAM_MIN_ITERATIONS && asked < SCRAM_DEFAULT_ITERATIONS
    ? asked
    : SCRAM_DEFAULT_ITERATIONS;
}
export const SCRAM_NONCE_BYTES = 32;
export const SCRAM_SALT_BYTES = 16;
/** The only channel-binding type TrueNAS 26 implements (scram_authentication.rst, "Channel Binding"). */
export const CB_TLS_SERVER_END_POINT = 'tls-server-end-point';

/** ClientKey, StoredKey and ServerKey of one secret (RFC 5802 §3). */
export interface ScramKeys {
  clientKey: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
}

/** The hash of SCRAM-SHA-512; a parameter only so RFC 5802 (SHA-1) and RFC 7677 (SHA-256) test vectors can check the steps. */
export type ScramHash = 'sha512' | 'sha256' | 'sha1';
const hmac = (key: Buffer, data: string | Buffer, hash: ScramHash = 'sha512') =>
  createHmac(hash, key).update(data).digest();
const digest = (data: Buffer, hash: ScramHash = 'sha512') => createHash(hash).update(data).digest();

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

/** SaltedPassword = PBKDF2-HMAC-SHA512(secret, salt, i), on libuv's pool (≈0.5 s at 500,000). */
export function saltedPassword(
  secret: string,
  salt: Buffer,
  iterations: number,
  hash: ScramHash = 'sha512',
): Promise<Buffer> {
  const size = createHash(hash).digest().length;
  return new Promise((resolve, reject) =>
    pbkdf2(secret, salt, iterations, size, hash, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** ClientKey = HMAC(SaltedPassword, "Client Key"), StoredKey = H(ClientKey), ServerKey = HMAC(SaltedPassword, "Server Key"). */
export function keysFromSaltedPassword(salted: Buffer, hash: ScramHash = 'sha512'): ScramKeys {
  const clientKey = hmac(salted, 'Client Key', hash);
  return { clientKey, storedKey: digest(clientKey, hash), serverKey: hmac(salted, 'Server Key', hash) };
}

/** What TrueNAS 26 stores and returns for a key (`generate_api_key_auth_data`, MW/utils/crypto.py:90 at stable/26). */
export interface ScramAuthData {
  iterations: number;
  salt: string;
  client_key: string;
  stored_key: string;
  server_key: string;
}

export async function scramAuthData(
  secret: string,
  salt: Buffer = randomBytes(SCRAM_SALT_BYTES),
  iterations = newDataIterations(),
): Promise<ScramAuthData> {
  return authDataOf(await saltedPassword(secret, salt, iterations), salt, iterations);
}

/** The same, computed in place: only while a state directory opens, before anything is served. */
export function scramAuthDataSync(
  secret: string,
  salt: Buffer = randomBytes(SCRAM_SALT_BYTES),
  iterations = newDataIterations(),
): ScramAuthData {
  return authDataOf(pbkdf2Sync(secret, salt, iterations, 64, 'sha512'), salt, iterations);
}

function authDataOf(salted: Buffer, salt: Buffer, iterations: number): ScramAuthData {
  const keys = keysFromSaltedPassword(salted);
  return {
    iterations,
    salt: salt.toString('base64'),
    client_key: keys.clientKey.toString('base64'),
    stored_key: keys.storedKey.toString('base64'),
    server_key: keys.serverKey.toString('base64'),
  };
}

/** Strict base64 (RFC 4648 alphabet, padded): what `b64decode` would refuse is refused. */
function b64(value: string): Buffer | null {
  if (value.length === 0 || value.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return null;
  return Buffer.from(value, 'base64');
}

/** `a=v,b=w` attributes in order; null when a part is not `x=value` with a one-letter name. */
function attributes(text: string): [string, string][] | null {
  const out: [string, string][] = [];
  for (const part of text.split(',')) {
    const m = /^([a-zA-Z])=(.+)$/s.exec(part);
    if (!m) return null;
    out.push([m[1]!, m[2]!]);
  }
  return out;
}

export class ScramMessageError extends Error {}

/** A parsed client-first-message (RFC 5802 §7). */
export interface ClientFirst {
  /** `n`, or `p=<cb-name>` (a `y` header is parsed and treated as unbound). */
  gs2Flag: string;
  username: string;
  /** The key id after `:`; 0 for a plain user (py_scram/client_first.py:21-25). */
  apiKeyId: number;
  nonce: Buffer;
  /** client-first-message-bare: what the AuthMessage starts with. */
  bare: string;
  /** `gs2-header` as sent, `n,,` or `p=tls-server-end-point,,`: what `c=` must carry. */
  gs2Header: string;
}

export function parseClientFirst(rfc: string): ClientFirst {
  const m = /^(n|y|p=[A-Za-z0-9.-]+),(a=[^,]*)?,(.*)$/s.exec(rfc);
  if (!m) throw new ScramMessageError('invalid GS2 header');
  if (m[2] !== undefined) throw new ScramMessageError('authzid is not supported');
  const bare = m[3]!;
  const attrs = attributes(bare);
  if (!attrs || attrs.length !== 2 || attrs[0]![0] !== 'n' || attrs[1]![0] !== 'r')
    throw new ScramMessageError('invalid client first message');
  const name = attrs[0]![1];
  const nonce = b64(attrs[1]![1]);
  if (!nonce || nonce.length !== SCRAM_NONCE_BYTES) throw new ScramMessageError('unexpected nonce size');
  const idAt = name.lastIndexOf(':');
  const username = idAt >= 0 ? name.slice(0, idAt) : name;
  const idText = idAt >= 0 ? name.slice(idAt + 1) : '0';
  if (!/^\d{1,15}$/.test(idText) || username.length === 0) throw new ScramMessageError('invalid username');
  return { gs2Flag: m[1]!, username, apiKeyId: Number(idText), nonce, bare, gs2Header: `${m[1]!},,` };
}

export function buildClientFirst(
  username: string,
  apiKeyId: number,
  nonce: Buffer,
  channelBinding: boolean,
): { rfc: string; bare: string; gs2Header: string } {
  if (/[,=]/.test(username)) throw new ScramMessageError("username must not contain ',' or '='");
  const gs2Header = channelBinding ? `p=${CB_TLS_SERVER_END_POINT},,` : 'n,,';
  const bare = `n=${username}:${apiKeyId},r=${nonce.toString('base64')}`;
  return { rfc: `${gs2Header}${bare}`, bare, gs2Header };
}

export interface ServerFirst {
  nonce: Buffer;
  salt: Buffer;
  iterations: number;
  rfc: string;
}

export function buildServerFirst(
  clientNonce: Buffer,
  salt: Buffer,
  iterations: number,
  serverNonce: Buffer = randomBytes(SCRAM_NONCE_BYTES),
): ServerFirst {
  const nonce = Buffer.concat([clientNonce, serverNonce]);
  return { nonce, salt, iterations, rfc: `r=${nonce.toString('base64')},s=${salt.toString('base64')},i=${iterations}` };
}

/** The server-first-message as the client checks it (py_scram/server_first.py:62-130). */
export function parseServerFirst(rfc: string, clientNonce: Buffer): ServerFirst {
  const attrs = attributes(rfc);
  if (!attrs || attrs.length !== 3 || attrs[0]![0] !== 'r' || attrs[1]![0] !== 's' || attrs[2]![0] !== 'i')
    throw new ScramMessageError('invalid server first message format');
  const nonce = b64(attrs[0]![1]);
  const salt = b64(attrs[1]![1]);
  const iterations = /^\d{1,10}$/.test(attrs[2]![1]) ? Number(attrs[2]![1]) : NaN;
  if (!nonce || nonce.length !== 2 * SCRAM_NONCE_BYTES || !nonce.subarray(0, SCRAM_NONCE_BYTES).equals(clientNonce)) {
    throw new ScramMessageError('the server nonce does not extend the client nonce');
  }
  if (!salt || salt.length > 1024) throw new ScramMessageError('invalid salt');
  if (!(iterations >= SCRAM_MIN_ITERATIONS && iterations <= SCRAM_MAX_ITERATIONS)) {
    throw new ScramMessageError(
      `${attrs[2]![1]}: iteration count outside [${SCRAM_MIN_ITERATIONS}, ${SCRAM_MAX_ITERATIONS}]`,
    );
  }
  return { nonce, salt, iterations, rfc };
}

/** `c=` of the client-final-message: base64(gs2-header + binding bytes) (RFC 5802 §6). */
export function channelBindingAttribute(gs2Header: string, binding: Buffer | null): string {
  return Buffer.concat([Buffer.from(gs2Header), binding ?? Buffer.alloc(0)]).toString('base64');
}

export const authMessage = (clientFirstBare: string, serverFirst: string, clientFinalWithoutProof: string) =>
  `${clientFirstBare},${serverFirst},${clientFinalWithoutProof}`;

/** ClientProof = ClientKey XOR HMAC(StoredKey, AuthMessage). */
export function clientProof(
  keys: Pick<ScramKeys, 'clientKey' | 'storedKey'>,
  message: string,
  hash: ScramHash = 'sha512',
): Buffer {
  return xor(keys.clientKey, hmac(keys.storedKey, message, hash));
}

export const serverSignature = (serverKey: Buffer, message: string, hash: ScramHash = 'sha512') =>
  hmac(serverKey, message, hash);

export function buildClientFinal(
  gs2Header: string,
  binding: Buffer | null,
  combinedNonce: Buffer,
  clientFirstBare: string,
  serverFirst: string,
  keys: ScramKeys,
) {
  const withoutProof = `c=${channelBindingAttribute(gs2Header, binding)},r=${combinedNonce.toString('base64')}`;
  const message = authMessage(clientFirstBare, serverFirst, withoutProof);
  return { rfc: `${withoutProof},p=${clientProof(keys, message).toString('base64')}`, authMessage: message };
}

export interface ClientFinal {
  channelBinding: Buffer;
  nonce: Buffer;
  proof: Buffer;
  withoutProof: string;
}

export function parseClientFinal(rfc: string): ClientFinal {
  const attrs = attributes(rfc);
  if (!attrs || attrs.length !== 3 || attrs[0]![0] !== 'c' || attrs[1]![0] !== 'r' || attrs[2]![0] !== 'p')
    throw new ScramMessageError('invalid client final message');
  const channelBinding = b64(attrs[0]![1]);
  const nonce = b64(attrs[1]![1]);
  const proof = b64(attrs[2]![1]);
  if (!channelBinding || !nonce || !proof) throw new ScramMessageError('invalid base64 in client final message');
  return { channelBinding, nonce, proof, withoutProof: rfc.slice(0, rfc.lastIndexOf(',p=')) };
}

/** The server's check of a proof: H(ClientProof XOR HMAC(StoredKey, AuthMessage)) = StoredKey, in constant time. */
export function proofMatches(storedKey: Buffer, message: string, proof: Buffer, hash: ScramHash = 'sha512'): boolean {
  const signature = hmac(storedKey, message, hash);
  if (proof.length !== signature.length || storedKey.length !== signature.length) return false;
  return timingSafeEqual(digest(xor(proof, signature), hash), storedKey);
}

/** The client's check of `v=` in the server-final-message; an `e=` answer or a mismatch is false. */
export function serverFinalMatches(rfc: string, serverKey: Buffer, message: string): boolean {
  const m = /^v=(.+)$/s.exec(rfc);
  const got = m ? b64(m[1]!) : null;
  const want = serverSignature(serverKey, message);
  return got !== null && got.length === want.length && timingSafeEqual(got, want);
}

export const newNonce = () => randomBytes(SCRAM_NONCE_BYTES);

// --- RFC 5929 §4.1 tls-server-end-point ---------------------------------------------------------

/** Signature algorithm OIDs to their hash (py_scram/channel_binding.py:29-45 at stable/26). */
const SIG_OID_HASH: Record<string, string> = {
  '1.2.840.113549.1.1.4': 'md5',
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.14': 'sha224',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.1': 'sha224',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.2.840.10040.4.3': 'sha1',
  '2.16.840.1.101.3.4.3.1': 'sha224',
  '2.16.840.1.101.3.4.3.2': 'sha256',
};
const RSASSA_PSS = '1.2.840.113549.1.1.10';
const HASH_OID: Record<string, string> = {
  '1.2.840.113549.2.5': 'md5',
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** One DER TLV header (low tag numbers only): [tag, value start, value end]. */
function tlv(buf: Buffer, at: number): [number, number, number] {
  if (at + 2 > buf.length) throw new Error('truncated DER');
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let p = at + 2;
  if (len >= 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > buf.length) throw new Error('bad DER length');
    len = buf.readUIntBE(p, n);
    p += n;
  }
  if (p + len > buf.length) throw new Error('truncated DER');
  return [tag, p, p + len];
}

function oid(data: Buffer): string {
  const parts = [Math.floor(data[0]! / 40), data[0]! % 40];
  let v = 0;
  for (const byte of data.subarray(1)) {
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

function pssHash(params: Buffer): string {
  if (params.length === 0) return 'sha1';
  const [tag, start, end] = tlv(params, 0);
  if (tag !== 0x30) throw new Error('malformed RSASSA-PSS parameters');
  if (start >= end) return 'sha1';
  const [htag, hstart] = tlv(params, start);
  if (htag !== 0xa0) return 'sha1';
  const [atag, astart] = tlv(params, hstart);
  if (atag !== 0x30) throw new Error('malformed RSASSA-PSS hashAlgorithm');
  const [otag, ostart, oend] = tlv(params, astart);
  if (otag !== 0x06) throw new Error('malformed RSASSA-PSS hashAlgorithm');
  const name = HASH_OID[oid(params.subarray(ostart, oend))];
  if (!name) throw new Error('tls-server-end-point: unsupported RSASSA-PSS hash');
  return name;
}

/**
 * The RFC 5929 `tls-server-end-point` binding of a DER certificate: the certificate hashed with
 * its own signature algorithm's hash, MD5 and SHA-1 promoted to SHA-256; undefined (an error) for
 * EdDSA (py_scram/channel_binding.py:181-205 at stable/26).
 */
export function tlsServerEndPoint(certDer: Buffer): Buffer {
  const [tag, certStart] = tlv(certDer, 0);
  if (tag !== 0x30) throw new Error('not a DER certificate');
  const [tbsTag, , afterTbs] = tlv(certDer, certStart);
  if (tbsTag !== 0x30) throw new Error('malformed certificate');
  const [algTag, algStart, algEnd] = tlv(certDer, afterTbs);
  if (algTag !== 0x30) throw new Error('malformed certificate');
  const [oidTag, oidStart, oidEnd] = tlv(certDer, algStart);
  if (oidTag !== 0x06) throw new Error('malformed certificate');
  const algorithm = oid(certDer.subarray(oidStart, oidEnd));
  const hash = algorithm === RSASSA_PSS ? pssHash(certDer.subarray(oidEnd, algEnd)) : SIG_OID_HASH[algorithm];
  if (!hash) throw new Error(`tls-server-end-point is undefined for signature algorithm ${algorithm}`);
  return createHash(hash === 'md5' || hash === 'sha1' ? 'sha256' : hash)
    .update(certDer)
    .digest();
}
