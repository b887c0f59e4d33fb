import { createHash } from 'node:crypto';

/**
 * How the pool and the control protocol name a key without holding or sending it: its SHA-256,
 * hex. An API key is a long random secret, so its hash tells nothing that could be guessed back.
 */
export function keySha256(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}
