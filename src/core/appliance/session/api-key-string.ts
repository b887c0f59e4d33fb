/** Splits `<id>-<secret>`; anything else is not a key. */
export function parseApiKey(key: string): { id: number; secret: string } | null {
  const m = /^(\d{1,15})-(.+)$/s.exec(key);
  return m ? { id: Number(m[1]), secret: m[2]! } : null;
}
