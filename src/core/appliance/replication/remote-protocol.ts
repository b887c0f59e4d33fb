import type { IncomingSnapshot } from './run.js';

// What both ends of the emulator's replication transport sign (docs/REPLICATION.md): each message
// names its purpose, so a signature made for one can never pass for the other.

/** The host key's signature: over the client's fresh nonce (what SSH's exchange hash binds, RFC 4253 §8). */
export const helloSigned = (nonce: Buffer): Buffer => Buffer.concat([Buffer.from('stor-zfs-hostkey\0'), nonce]);

/** The client key's signature: the server's challenge, the client's nonce and the user (RFC 4252 §7's session id, user name). */
export const authSigned = (challenge: Buffer, nonce: Buffer, username: string): Buffer =>
  Buffer.concat([Buffer.from('stor-zfs-userauth\0'), challenge, nonce, Buffer.from(`\0${username}`, 'utf8')]);

/** The header of a `recv` request (`x-stor-recv`, base64url JSON); the body is the snapshot's stream. */
export interface IncomingRecv {
  readonly snapshot: IncomingSnapshot;
  readonly target: string;
  readonly base: string | null;
}
