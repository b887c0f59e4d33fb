import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { contractFor } from '../../../src/core/releases/index.js';
import { openTestAppliance } from '../../helpers/appliance.js';

/*
 * The typed client checks an answer without zod's compiled parser unless it is a list of 64 or
 * more (src/core/contract/client.ts parseContextFor). Both parsers must take and refuse the same
 * answers, with the same data (unknown keys dropped, defaults filled) and the same first issue,
 * which MALFORMED_ANSWER names. Real answers of the emulator, bent one field at a time.
 */
const READS: [string, unknown[]][] = [
  ['auth.me', []],
  ['system.info', []],
  ['user.query', []],
  ['group.query', []],
  ['privilege.query', []],
  ['api_key.query', []],
  ['pool.query', []],
  ['pool.dataset.query', []],
  ['pool.snapshot.query', []],
  ['sharing.nfs.query', []],
  ['sharing.smb.query', []],
  ['pool.snapshottask.query', []],
];

const ODD: unknown[] = [null, undefined, 0, -1.5, '', 'x', true, [], {}, [null], { extra: 1 }];

/** The value with one field (at any depth, in objects and lists) replaced or removed, each way. */
function* bent(value: unknown, depth = 0): Generator<unknown> {
  if (depth > 3) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < Math.min(value.length, 3); i++)
      for (const b of bent(value[i], depth + 1)) yield value.map((v, j) => (j === i ? b : v));
    yield [...value, { unexpected: true }];
    return;
  }
  if (typeof value !== 'object' || value === null) {
    yield* ODD;
    return;
  }
  const obj = value as Record<string, unknown>;
  yield { ...obj, not_a_field: 1, __proto__: { x: 1 } };
  for (const key of Object.keys(obj)) {
    const { [key]: _, ...without } = obj;
    yield without;
    yield { ...obj, [key]: undefined };
    for (const b of bent(obj[key], depth + 1)) yield { ...obj, [key]: b };
  }
}

function both(schema: z.ZodType, answer: unknown) {
  const plain = schema.safeParse(answer, { jitless: true });
  const compiled = schema.safeParse(answer);
  const shown = (r: typeof plain) =>
    r.success
      ? {
          ok: true,
          data: r.data,
          keys: JSON.stringify(r.data, (_k, v: unknown) => (v === undefined ? '<undefined>' : v)),
        }
      : { ok: false, issue: r.error.issues[0], count: r.error.issues.length, text: r.error.message };
  return [shown(plain), shown(compiled)];
}

describe("the client's check of an answer, with and without zod's compiled parser", () => {
  for (const release of ['25.10.1', '26.0'] as const)
    it(`takes, shapes and refuses every bent answer of ${release} the same`, async () => {
      const t = await openTestAppliance({ release });
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/b', create_ancestors: true });
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/a', name: 's1' });
      const contract = contractFor(release);
      let compared = 0;
      for (const [method, params] of READS) {
        const schema = contract.get(method)?.result as z.ZodType | undefined;
        if (!schema) continue;
        const answer = await t.call(t.admin, method, ...params);
        const lists =
          Array.isArray(answer) && answer.length > 0
            ? [63, 64, 65].map((n) => Array.from({ length: n }, (_, i) => answer[i % answer.length]))
            : [];
        // Every bending of the first entries would be tens of thousands for the datasets: a spread of them.
        const all = [...bent(answer)];
        const step = Math.max(1, Math.floor(all.length / 300));
        for (const sample of [answer, ...all.filter((_, i) => i % step === 0), ...lists]) {
          const [plain, compiled] = both(schema, sample);
          expect(plain, method).toEqual(compiled);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(1000);
    });
});
