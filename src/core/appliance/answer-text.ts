/**
 * Answers a handler hands out again unchanged (describeSession's `auth.me` object, methods/auth.ts)
 * with their JSON text, made once: the server splices the text into the response
 * (rpc/codec.ts `encodeResponse`) instead of serializing the same object on every call. Such an
 * object is read-only, and must not be changed after it is registered: the text would no longer be it.
 */
const texts = new WeakMap<object, string>();

/** Registers `value`'s JSON text, as JSON.stringify writes it now; returns `value`. */
export function withKnownJson<T extends object>(value: T): T {
  texts.set(value, JSON.stringify(value));
  return value;
}

/** The JSON text registered for `value`, if any. */
export function knownJsonOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}
