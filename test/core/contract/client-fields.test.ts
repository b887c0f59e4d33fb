import { describe, expect, it, onTestFinished } from 'vitest';
import * as z from 'zod';
import { call, callForFields, FIELDS_METHODS } from '../../../src/core/contract/client.js';
import { CONTRACT } from '../../../src/core/contract/index.js';
import { EmbeddedTransport } from '../../../src/core/transport/embedded.js';
import { openTestAppliance } from '../../helpers/appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * callForFields (src/core/contract/client.ts) hands an embedded appliance's answer on unchecked,
 * which is the same as checking it only while the check changes no value the command reads: the
 * methods it takes must have result schemas that transform, default or catch nothing, and the
 * emulator's answers must pass the check with the same values.
 */

/** Where a schema (at any depth) would make a value the answer did not hold. */
function valueMakers(schema: z.ZodType, path = '$', seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema.def as unknown as Record<string, unknown> & { type: string };
  const found = ['transform', 'pipe', 'default', 'prefault', 'catch', 'success', 'lazy', 'custom'].includes(def.type)
    ? [`${path}: ${def.type}`]
    : [];
  const children = (value: unknown, at: string): string[] => {
    if (value instanceof z.ZodType) return valueMakers(value, at, seen);
    if (Array.isArray(value)) return value.flatMap((v, i) => children(v, `${at}[${i}]`));
    return [];
  };
  for (const [key, value] of Object.entries(def)) {
    if (key === 'shape' && value && typeof value === 'object')
      for (const [field, s] of Object.entries(value)) found.push(...children(s, `${path}.${field}`));
    else found.push(...children(value, `${path}<${key}>`));
  }
  return found;
}

describe('callForFields', () => {
  it('finds a schema that makes values (the check below can fail)', () => {
    expect(valueMakers(z.object({ a: z.array(z.string().default('x')) }))).toEqual(['$.a<element>: default']);
    expect(valueMakers(z.object({ a: z.string().transform((s) => s.length) }))).not.toEqual([]);
    expect(valueMakers(z.object({ a: z.string().nullable(), b: z.enum(['x']) }))).toEqual([]);
  });

  it('takes only methods whose answers the check would not change', () => {
    for (const method of FIELDS_METHODS) expect(valueMakers(CONTRACT[method].result), method).toEqual([]);
  });

  for (const release of ['25.10.1', '26.0'] as const)
    it(`hands on the embedded appliance's answers as the check would give their fields (${release})`, async () => {
      const stateDir = tempDir();
      // Seeds the state with the release's settings, then leaves it to the embedded transport.
      const closers: (() => void)[] = [];
      await openTestAppliance({ release }, stateDir, undefined, (close) => closers.push(close));
      for (const close of closers) close();
      const transport = await EmbeddedTransport.open({ stateDir, timeoutSeconds: 30 });
      onTestFinished(() => transport.close());
      expect(transport.target.kind).toBe('embedded');
      expect((await call(transport, 'stor.emulation')).settings.release).toBe(release);
      for (const method of FIELDS_METHODS) {
        const unchecked: unknown = await callForFields(transport, method);
        const checked: unknown = await call(transport, method);
        expect(unchecked, method).toMatchObject(checked as object);
        expect(CONTRACT[method].result.parse(unchecked), method).toEqual(checked);
      }
    });
});
