import { createHash } from 'node:crypto';
import type { PooledTarget } from './opener.js';
import { keySha256 } from './key-hash.js';

/**
 * Which pooled connection serves `target`: one per (URL, key, TLS settings, keepalive, user, SCRAM pin). Two
 * commands share a connection only when they would have opened the same one themselves; the key
 * and the CA appear only as hashes.
 */
export function poolKey(target: PooledTarget): string {
  const ca = target.ca ? createHash('sha256').update(target.ca).digest('hex') : '';
  return JSON.stringify([
    target.endpoint.display,
    keySha256(target.apiKey),
    target.insecure,
    ca,
    target.keepaliveSeconds ?? null,
    target.username ?? null,
    target.scramOnly === true,
  ]);
}
