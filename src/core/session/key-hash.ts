import { hash } from 'node:crypto';

/**
 * How the pool and the control protocol name a key without holding or sending it: its SHA-256,
 * hex. An API key is a long random secret, so its hash tells nothing that could be guessed back.
 * One-shot `crypto.hash` (Node ≥ 20.12): no Hash stream object per call.
 */
export function keySha256(apiKey: string): string {
  return hash('sha256', apiKey, 'hex');
}
