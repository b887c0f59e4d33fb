import { describe, expect, it } from 'vitest';
import { contractViolations } from '../../../src/core/contract/conformance.js';
import { CONTRACT } from '../../../src/core/contract/index.js';

const entry = {
  id: 4,
  builtin_name: null,
  name: 'ops',
  local_groups: [{ gid: 3005, sid: null, group: null }],
  ds_groups: [],
  roles: ['READONLY_ADMIN'],
  web_shell: false,
};

describe('contractViolations: an answer against its 25.10.1 result schema', () => {
  const schema = CONTRACT['privilege.get_instance'].result;

  it('accepts an entry shaped as PrivilegeEntry (MW/api/v25_10_1/privilege.py)', () => {
    expect(contractViolations(schema, entry)).toEqual([]);
  });

  it('names a missing field, a field of the wrong type, and a field 25.10.1 does not send', () => {
    const { web_shell: _, ...noWebShell } = entry;
    expect(contractViolations(schema, noWebShell)).toEqual([expect.stringMatching(/^web_shell: /)]);
    expect(contractViolations(schema, { ...entry, id: '4' })).toEqual([expect.stringMatching(/^id: /)]);
    expect(contractViolations(schema, { ...entry, comments: 'x' })).toEqual([
      'comments: not a field of the 25.10.1 result',
    ]);
    expect(
      contractViolations(schema, { ...entry, local_groups: [{ gid: 1, sid: null, group: null, extra: 1 }] }),
    ).toEqual(['local_groups.0.extra: not a field of the 25.10.1 result']);
  });

  it('takes query answers as 25.10.1 does: a list, one item or a count, items with any subset of fields (MW/api/base/model.py:307-324)', () => {
    const query = CONTRACT['privilege.query'].result;
    expect(contractViolations(query, [entry, { id: 5 }])).toEqual([]);
    expect(contractViolations(query, { name: 'ops' })).toEqual([]);
    expect(contractViolations(query, 3)).toEqual([]);
    expect(contractViolations(query, 'three')).not.toEqual([]);
  });
});

describe('one contract for the emulator and the client', () => {
  it('every method the emulator serves is a contract method, with its params, access and result schema', async () => {
    const { allHandlers } = await import('../../../src/core/appliance/methods/index.js');
    const { methods: METHODS } = await allHandlers();
    for (const [name, def] of METHODS) {
      const contract = (CONTRACT as Record<string, (typeof CONTRACT)[keyof typeof CONTRACT]>)[name];
      expect(contract, name).toBeDefined();
      expect(def.result, name).toBe(contract!.result);
      expect(def.params, name).toBe(contract!.params);
      expect(def.access, name).toBe(contract!.access);
    }
  });

  it("every entry of every release's contract, either key login, has a handler implemented from it or 25.10.1's", async () => {
    const { allHandlers } = await import('../../../src/core/appliance/methods/index.js');
    const { methods: METHODS, release: RELEASE_METHODS } = await allHandlers();
    const { RELEASE_NAMES, contractFor } = await import('../../../src/core/releases/index.js');
    for (const release of RELEASE_NAMES) {
      for (const keyLogin of ['plain', 'scram'] as const) {
        for (const [name, entry] of contractFor(release, keyLogin)) {
          const own = [...(RELEASE_METHODS.get(name) ?? []), METHODS.get(name)].some(
            (h) => h !== undefined && Object.prototype.isPrototypeOf.call(entry, h),
          );
          expect(own || METHODS.has(name), `${release} ${keyLogin} ${name}`).toBe(true);
        }
      }
    }
  });

  it('every contract method is implemented by the emulator', async () => {
    const { allHandlers } = await import('../../../src/core/appliance/methods/index.js');
    const { methods: METHODS } = await allHandlers();
    expect(Object.keys(CONTRACT).filter((name) => !METHODS.has(name))).toEqual([]);
  });
});
