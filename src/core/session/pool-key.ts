import { hash } from 'node:crypto';
import type { PooledTarget } from './opener.js';

/**
 * Which pooled connection serves `target`: one per (URL, key, TLS settings, keepalive, user, SCRAM pin). Two
 * commands share a connection only when they would have opened the same one themselves; the key
 * and the CA appear only as hashes. `keyHash` is the key's SHA-256 (keySha256), which the pool
 * keeps per key while a session of it is pooled rather than hash it on every command.
 */
export function poolKey(target: PooledTarget, keyHash: string): string {
  const ca = target.ca ? hash('sha256', target.ca, 'hex') : '';
  return JSON.stringify([
    target.endpoint.display,
    keyHash,
    target.insecure,
    ca,
    target.keepaliveSeconds ?? null,
    target.username ?? null,
    target.scramOnly === true,
  ]);
}
