import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  analyzeRoleList,
  breaksLogin,
  findingBreaksLogin,
  catalogueFromPrivilegeRoles,
  createCatalogue,
  expandRoles,
  fixRoleList,
  minimalRoleList,
  release25101Catalogue,
  type RoleCatalogue,
  type RoleFinding,
} from '../../../src/core/roles/index.js';

const catalogue = release25101Catalogue();
const sorted = (items: Iterable<string>): string[] => [...items].sort();
const kinds = (findings: readonly RoleFinding[]): string[] => findings.map((f) => `${f.index}:${f.kind}`);

const NOT_STIG = [
  'API_KEY_WRITE',
  'VM_WRITE',
  'VM_DEVICE_WRITE',
  'TRUECOMMAND_WRITE',
  'TRUENAS_CONNECT_WRITE',
  'CATALOG_WRITE',
  'DOCKER_WRITE',
  'APPS_WRITE',
  'VIRT_GLOBAL_WRITE',
  'VIRT_INSTANCE_WRITE',
  'VIRT_INSTANCE_DELETE',
  'VIRT_IMAGE_WRITE',
];

describe('release 25.10.1 catalogue', () => {
  it('has the 141 shipped roles, FULL_ADMIN the only full-admin one', () => {
    expect(catalogue.names).toHaveLength(141);
    expect(new Set(catalogue.names).size).toBe(141);
    expect(catalogue.names.at(-1)).toBe('READONLY_ADMIN');
    expect(catalogue.names.filter((n) => catalogue.get(n)!.fullAdmin)).toEqual(['FULL_ADMIN']);
    expect(catalogue.get('FULL_ADMIN')!.includes).toEqual([]);
    expect(release25101Catalogue()).toBe(catalogue);
  });

  it('keeps the two self-including roles exactly as shipped', () => {
    expect(catalogue.get('PRIVILEGE_WRITE')!.includes).toEqual(['PRIVILEGE_WRITE']);
    expect(catalogue.get('SYSTEM_PRODUCT_WRITE')!.includes).toEqual(['SYSTEM_PRODUCT_WRITE']);
  });

  it('marks builtin and stig as privilege.roles reports them', () => {
    const notBuiltin = catalogue.names.filter((n) => !catalogue.get(n)!.builtin);
    expect(sorted(notBuiltin)).toEqual(['FULL_ADMIN', 'READONLY_ADMIN', 'REPLICATION_ADMIN', 'SHARING_ADMIN']);
    expect(sorted(catalogue.names.filter((n) => catalogue.get(n)!.stig === null))).toEqual(sorted(NOT_STIG));
    expect(catalogue.names.filter((n) => catalogue.get(n)!.stig === 1)).toHaveLength(129);
  });

  it("has the closure sizes of 25.10.1's catalogue (MW/role.py)", () => {
    expect(catalogue.closure('FULL_ADMIN').size).toBe(141);
    expect(catalogue.closure('READONLY_ADMIN').size).toBe(67);
    expect(catalogue.closure('SHARING_ADMIN').size).toBe(84);
    expect(catalogue.closure('REPLICATION_ADMIN').size).toBe(11);
    expect(catalogue.closure('FILESYSTEM_FULL_CONTROL').size).toBe(5);
  });

  it('has the exact closures of FILESYSTEM_FULL_CONTROL and REPLICATION_ADMIN', () => {
    expect(sorted(catalogue.closure('FILESYSTEM_FULL_CONTROL'))).toEqual(
      sorted([
        'FILESYSTEM_FULL_CONTROL',
        'FILESYSTEM_ATTRS_READ',
        'FILESYSTEM_ATTRS_WRITE',
        'FILESYSTEM_DATA_READ',
        'FILESYSTEM_DATA_WRITE',
      ]),
    );
    expect(sorted(catalogue.closure('REPLICATION_ADMIN'))).toEqual(
      sorted([
        'REPLICATION_ADMIN',
        'KEYCHAIN_CREDENTIAL_READ',
        'KEYCHAIN_CREDENTIAL_WRITE',
        'REPLICATION_TASK_CONFIG_READ',
        'REPLICATION_TASK_CONFIG_WRITE',
        'REPLICATION_TASK_READ',
        'REPLICATION_TASK_WRITE',
        'SNAPSHOT_READ',
        'SNAPSHOT_WRITE',
        'SNAPSHOT_TASK_READ',
        'SNAPSHOT_TASK_WRITE',
      ]),
    );
  });

  it('READONLY_ADMIN is itself plus every *_READ role', () => {
    const reads = catalogue.names.filter((n) => n.endsWith('_READ'));
    expect(reads).toHaveLength(66);
    expect(sorted(catalogue.closure('READONLY_ADMIN'))).toEqual(sorted(['READONLY_ADMIN', ...reads]));
  });

  it('expands the self-including roles to themselves and flags only them', () => {
    for (const role of ['PRIVILEGE_WRITE', 'SYSTEM_PRODUCT_WRITE']) {
      expect(sorted(catalogue.closure(role))).toEqual([role]);
      expect(catalogue.isSelfIncluding(role)).toBe(true);
    }
    const selfIncluding = catalogue.names.filter((n) => catalogue.isSelfIncluding(n));
    expect(sorted(selfIncluding)).toEqual(['PRIVILEGE_WRITE', 'SYSTEM_PRODUCT_WRITE']);
    expect(catalogue.isSelfIncluding('FULL_ADMIN')).toBe(false);
  });

  it('gives unknown roles an empty closure', () => {
    expect(catalogue.has('NOT_A_ROLE')).toBe(false);
    expect(catalogue.get('NOT_A_ROLE')).toBeUndefined();
    expect(catalogue.closure('NOT_A_ROLE').size).toBe(0);
    expect(catalogue.isSelfIncluding('NOT_A_ROLE')).toBe(false);
  });

  it('expands a list of all 141 roles to 141', () => {
    expect(expandRoles(catalogue, catalogue.names).size).toBe(141);
    expect(
      expandRoles(
        catalogue,
        [...catalogue.names].filter((n) => n !== 'FULL_ADMIN'),
      ).size,
    ).toBe(140);
  });
});

describe('createCatalogue', () => {
  const def = (name: string, includes: string[], fullAdmin = false) => ({
    name,
    includes,
    fullAdmin,
    builtin: true,
    stig: 1 as const,
  });

  it('terminates on a 3-role cycle, all three self-including and mutually included', () => {
    const cyclic = createCatalogue([def('A', ['B']), def('B', ['C']), def('C', ['A']), def('D', ['A'])]);
    for (const role of ['A', 'B', 'C']) {
      expect(sorted(cyclic.closure(role))).toEqual(['A', 'B', 'C']);
      expect(cyclic.isSelfIncluding(role)).toBe(true);
    }
    expect(sorted(cyclic.closure('D'))).toEqual(['A', 'B', 'C', 'D']);
    expect(cyclic.isSelfIncluding('D')).toBe(false);
  });

  it('ignores includes naming roles outside the catalogue', () => {
    const c = createCatalogue([def('A', ['GHOST', 'B']), def('B', [])]);
    expect(sorted(c.closure('A'))).toEqual(['A', 'B']);
  });

  it('treats a role including a full-admin role as everything but not as self-including', () => {
    const c = createCatalogue([def('A', ['ROOT']), def('ROOT', ['A'], true), def('B', [])]);
    expect(sorted(c.closure('A'))).toEqual(['A', 'B', 'ROOT']);
    expect(c.isSelfIncluding('A')).toBe(false);
    expect(c.isSelfIncluding('ROOT')).toBe(false);
  });

  it('refuses two definitions of one name', () => {
    expect(() => createCatalogue([def('A', []), def('A', ['B'])])).toThrow(/duplicate/);
  });
});

describe('catalogueFromPrivilegeRoles', () => {
  it('rebuilds the release catalogue from privilege.roles entries', () => {
    const entries = catalogue.names.map((name) => {
      const role = catalogue.get(name)!;
      return { name, title: name, includes: role.includes, builtin: role.builtin, stig: role.stig };
    });
    const remote = catalogueFromPrivilegeRoles(entries);
    expect(remote.names).toEqual(catalogue.names);
    for (const name of catalogue.names) {
      expect(sorted(remote.closure(name))).toEqual(sorted(catalogue.closure(name)));
      expect(remote.isSelfIncluding(name)).toBe(catalogue.isSelfIncluding(name));
      expect(remote.get(name)).toEqual(catalogue.get(name));
    }
  });

  it('only takes FULL_ADMIN with no includes as full admin; a missing stig means 1', () => {
    const remote = catalogueFromPrivilegeRoles([
      { name: 'FULL_ADMIN', includes: [], builtin: false },
      { name: 'A', includes: [], builtin: true, stig: null },
    ]);
    expect(remote.get('FULL_ADMIN')!.fullAdmin).toBe(true);
    expect(remote.get('FULL_ADMIN')!.stig).toBe(1);
    expect(remote.get('A')!.stig).toBeNull();
    const odd = catalogueFromPrivilegeRoles([
      { name: 'FULL_ADMIN', includes: ['A'], builtin: false },
      { name: 'A', includes: [], builtin: true },
    ]);
    expect(odd.get('FULL_ADMIN')!.fullAdmin).toBe(false);
  });

  it('an identical answer gets the catalogue built before; any difference, a catalogue of its own', () => {
    const answer = () => [
      { name: 'A', includes: ['B'], builtin: true },
      { name: 'B', includes: [], builtin: true },
    ];
    const first = catalogueFromPrivilegeRoles(answer());
    expect(catalogueFromPrivilegeRoles(answer())).toBe(first);
    // An absent stig (taken as 1) and a null one are different answers.
    const nullStig = catalogueFromPrivilegeRoles([{ ...answer()[0]!, stig: null }, answer()[1]!]);
    expect(nullStig).not.toBe(first);
    expect(nullStig.get('A')!.stig).toBeNull();
    const otherIncludes = catalogueFromPrivilegeRoles([{ ...answer()[0]!, includes: [] }, answer()[1]!]);
    expect(otherIncludes).not.toBe(first);
    expect(otherIncludes.closure('A').has('B')).toBe(false);
  });
});

describe('analyzeRoleList', () => {
  it('reports a meta-role listed with one of its included roles', () => {
    const a = analyzeRoleList(catalogue, ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE']);
    expect(a.findings).toEqual([
      {
        kind: 'overlap',
        index: 1,
        role: 'FILESYSTEM_DATA_WRITE',
        includedBy: 'FILESYSTEM_FULL_CONTROL',
        includedByIndex: 0,
      },
    ]);
    expect(a.minimal).toEqual(['FILESYSTEM_FULL_CONTROL']);
    expect(a.effective.size).toBe(5);
    expect(breaksLogin('as-reported', a)).toBe(true);
  });

  it('reports a self-including role', () => {
    const a = analyzeRoleList(catalogue, ['PRIVILEGE_WRITE']);
    expect(a.findings).toEqual([{ kind: 'self-including', index: 0, role: 'PRIVILEGE_WRITE' }]);
    expect(a.minimal).toEqual(['PRIVILEGE_WRITE']);
    expect(breaksLogin('as-reported', a)).toBe(true);
  });

  it('reduces FULL_ADMIN plus 30 other roles to FULL_ADMIN', () => {
    const others = catalogue.names.filter((n) => n !== 'FULL_ADMIN').slice(0, 30);
    const first = analyzeRoleList(catalogue, ['FULL_ADMIN', ...others]);
    expect(first.minimal).toEqual(['FULL_ADMIN']);
    expect(first.effective.size).toBe(141);
    const overlaps = first.findings.filter((f) => f.kind === 'overlap');
    expect(overlaps.map((f) => f.index)).toEqual(others.map((_, i) => i + 1));
    for (const f of overlaps) expect(f).toMatchObject({ includedBy: 'FULL_ADMIN', includedByIndex: 0 });
    // PRIVILEGE_WRITE is among the 30; it is still self-including, FULL_ADMIN or not.
    expect(first.findings.filter((f) => f.kind !== 'overlap')).toEqual([
      { kind: 'self-including', index: others.indexOf('PRIVILEGE_WRITE') + 1, role: 'PRIVILEGE_WRITE' },
    ]);
    expect(breaksLogin('as-reported', first)).toBe(true);

    // Listed later, FULL_ADMIN still wins; overlaps name the first includer in list order.
    const middle = analyzeRoleList(catalogue, [...others.slice(0, 10), 'FULL_ADMIN', ...others.slice(10)]);
    expect(middle.minimal).toEqual(['FULL_ADMIN']);
    expect(middle.findings.filter((f) => f.kind === 'overlap')).toHaveLength(30);
    expect(middle.findings[0]).toEqual({
      kind: 'overlap',
      index: 0,
      role: 'ACCOUNT_READ',
      includedBy: 'ACCOUNT_WRITE',
      includedByIndex: 1,
    });
    expect(middle.findings[1]).toMatchObject({ role: 'ACCOUNT_WRITE', includedBy: 'FULL_ADMIN', includedByIndex: 10 });
  });

  it('reports unknown roles without breaking login', () => {
    const a = analyzeRoleList(catalogue, ['NOT_A_ROLE', 'POOL_READ']);
    expect(a.findings).toEqual([{ kind: 'unknown', index: 0, role: 'NOT_A_ROLE' }]);
    expect(a.minimal).toEqual(['POOL_READ']);
    expect(breaksLogin('as-reported', a)).toBe(false);
  });

  it('reports duplicates', () => {
    const a = analyzeRoleList(catalogue, ['POOL_READ', 'POOL_READ']);
    expect(a.findings).toEqual([{ kind: 'duplicate', index: 1, role: 'POOL_READ', firstIndex: 0 }]);
    expect(a.minimal).toEqual(['POOL_READ']);
    expect(breaksLogin('as-reported', a)).toBe(true);
  });

  it('does not let a repeated unknown role break login', () => {
    const a = analyzeRoleList(catalogue, ['NOT_A_ROLE', 'NOT_A_ROLE']);
    expect(kinds(a.findings)).toEqual(['0:unknown', '1:unknown', '1:duplicate']);
    expect(a.minimal).toEqual([]);
    expect(breaksLogin('as-reported', a)).toBe(false);
  });

  it('finds nothing wrong with FULL_ADMIN alone or the built-in privileges', () => {
    for (const role of ['FULL_ADMIN', 'READONLY_ADMIN', 'SHARING_ADMIN']) {
      const a = analyzeRoleList(catalogue, [role]);
      expect(a.findings).toEqual([]);
      expect(a.minimal).toEqual([role]);
      expect(breaksLogin('as-reported', a)).toBe(false);
    }
  });

  it('keeps SHARING_ADMIN over the READONLY_ADMIN it includes', () => {
    const a = analyzeRoleList(catalogue, ['READONLY_ADMIN', 'SHARING_ADMIN']);
    expect(a.findings).toEqual([
      { kind: 'overlap', index: 0, role: 'READONLY_ADMIN', includedBy: 'SHARING_ADMIN', includedByIndex: 1 },
    ]);
    expect(a.minimal).toEqual(['SHARING_ADMIN']);
    expect(breaksLogin('as-reported', a)).toBe(true);
  });

  it('sorts findings by index, then kind', () => {
    const roles = ['SHARING_ADMIN', 'X', 'READONLY_ADMIN', 'X', 'READONLY_ADMIN', 'PRIVILEGE_WRITE', 'PRIVILEGE_WRITE'];
    const a = analyzeRoleList(catalogue, roles);
    expect(kinds(a.findings)).toEqual([
      '1:unknown',
      '2:overlap',
      '3:unknown',
      '3:duplicate',
      '4:duplicate',
      '4:overlap',
      '5:self-including',
      '6:self-including',
      '6:duplicate',
    ]);
    expect(a.minimal).toEqual(['SHARING_ADMIN', 'PRIVILEGE_WRITE']);
  });

  it('keeps the first listed role of a cycle', () => {
    const cyclic = createCatalogue(
      ['A', 'B', 'C'].map((name, i, all) => ({
        name,
        includes: [all[(i + 1) % 3]!],
        fullAdmin: false,
        builtin: true,
        stig: 1 as const,
      })),
    );
    expect(minimalRoleList(cyclic, ['C', 'A', 'B'])).toEqual(['C']);
    const a = analyzeRoleList(cyclic, ['B', 'A']);
    expect(kinds(a.findings)).toEqual(['0:self-including', '0:overlap', '1:self-including', '1:overlap']);
  });
});

// ---- properties ----

const RUNS = { numRuns: 300 };
const UNKNOWN = ['NOT_A_ROLE', 'full_admin', '', 'POOL_READX'];
// Drawn more often so lists hit the meta-roles and self-loops, not just leaf roles.
const META = [
  'FULL_ADMIN',
  'READONLY_ADMIN',
  'SHARING_ADMIN',
  'REPLICATION_ADMIN',
  'FILESYSTEM_FULL_CONTROL',
  'PRIVILEGE_WRITE',
  'SYSTEM_PRODUCT_WRITE',
];

/** Lists drawn from `names` and some unknown names, with repeats shuffled in. */
function roleList(names: readonly string[], favoured: readonly string[] = []): fc.Arbitrary<string[]> {
  const one = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN) },
    ...(favoured.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...favoured) }] : []),
  );
  return fc
    .array(one, { maxLength: 30 })
    .chain((base) =>
      base.length === 0
        ? fc.constant(base)
        : fc
            .array(fc.constantFrom(...base), { maxLength: 8 })
            .chain((extra) => fc.shuffledSubarray([...base, ...extra], { minLength: base.length + extra.length })),
    );
}

interface Graph {
  names: string[];
  includes: string[][];
  fullAdmin: number | null;
}

/** Random include graphs of 2–maxRoles roles: self-loops, longer cycles, dangling includes. */
function graph(maxRoles: number): fc.Arbitrary<Graph> {
  return fc.integer({ min: 2, max: maxRoles }).chain((n) => {
    const names = Array.from({ length: n }, (_, i) => `R${i}`);
    return fc.record({
      names: fc.constant(names),
      includes: fc.array(fc.uniqueArray(fc.constantFrom(...names, 'GHOST'), { maxLength: 3 }), {
        minLength: n,
        maxLength: n,
      }),
      fullAdmin: fc.option(fc.nat(n - 1), { freq: 4 }),
    });
  });
}

function build(g: Graph): RoleCatalogue {
  return createCatalogue(
    g.names.map((name, i) => ({
      name,
      includes: g.includes[i]!,
      fullAdmin: g.fullAdmin === i,
      builtin: true,
      stig: 1,
    })),
  );
}

/** Straight from the definition, by fixed-point iteration: no memo, no shortcuts. */
function naiveReach(g: Graph, from: readonly string[]): Set<string> {
  const reach = new Set(from.filter((n) => g.names.includes(n)));
  for (let changed = true; changed;) {
    changed = false;
    for (const role of [...reach]) {
      const i = g.names.indexOf(role);
      if (i === g.fullAdmin) continue;
      for (const next of g.includes[i]!) {
        if (g.names.includes(next) && !reach.has(next)) {
          reach.add(next);
          changed = true;
        }
      }
    }
  }
  return reach;
}

function naiveClosure(g: Graph, role: string): Set<string> {
  const reach = naiveReach(g, [role]);
  return g.fullAdmin !== null && reach.has(g.names[g.fullAdmin]!) ? new Set(g.names) : reach;
}

function minimalProperties(c: RoleCatalogue, roles: string[]): void {
  const minimal = minimalRoleList(c, roles);
  // (a) same effective roles
  expect(sorted(expandRoles(c, minimal))).toEqual(sorted(expandRoles(c, roles)));
  // (b) nothing left to reduce
  const again = analyzeRoleList(c, minimal);
  expect(again.findings.filter((f) => f.kind === 'overlap' || f.kind === 'duplicate')).toEqual([]);
  // (c) fixed point
  expect(minimalRoleList(c, minimal)).toEqual(minimal);
  // (d) only known roles, never longer than the deduplicated known input, in first-appearance order
  const knownInput = [...new Set(roles)].filter((r) => c.has(r));
  expect(minimal.every((r) => c.has(r))).toBe(true);
  expect(minimal.length).toBeLessThanOrEqual(knownInput.length);
  expect(knownInput.filter((r) => minimal.includes(r))).toEqual(minimal);
}

describe('properties over the release catalogue', () => {
  it('minimalRoleList keeps the effective roles, is reduced, a fixed point and no longer', () => {
    fc.assert(
      fc.property(roleList(catalogue.names, META), (roles) => minimalProperties(catalogue, roles)),
      RUNS,
    );
  });

  it('fixRoleList: the minimal list, an unknown name kept in place unless dropUnknown, each role once, every other listed role dropped', () => {
    fc.assert(
      fc.property(roleList(catalogue.names, META), (roles) => {
        const a = analyzeRoleList(catalogue, roles);
        expect(fixRoleList(catalogue, a, { dropUnknown: true }).after).toEqual(a.minimal);
        const kept = fixRoleList(catalogue, a);
        expect(kept.after).toEqual([...new Set(roles)].filter((r) => !catalogue.has(r) || a.minimal.includes(r)));
        expect(kept.dropped.length + kept.after.length).toBe(roles.length);
        expect(kept.dropped.map((d) => roles[d.index])).toEqual(kept.dropped.map((d) => d.role));
        const selfIncluding = fixRoleList(catalogue, a, { dropSelfIncluding: true }).after;
        expect(selfIncluding).toEqual(kept.after.filter((r) => !catalogue.has(r) || !catalogue.isSelfIncluding(r)));
      }),
      RUNS,
    );
  });

  it('analyzeRoleList agrees with its parts', () => {
    fc.assert(
      fc.property(roleList(catalogue.names, META), (roles) => {
        const a = analyzeRoleList(catalogue, roles);
        expect(a.roles).toBe(roles);
        expect(a.minimal).toEqual(minimalRoleList(catalogue, roles));
        expect(sorted(a.effective)).toEqual(sorted(expandRoles(catalogue, roles)));
        const unknownAt = a.findings.filter((f) => f.kind === 'unknown').map((f) => f.index);
        expect(unknownAt).toEqual(roles.flatMap((r, i) => (catalogue.has(r) ? [] : [i])));
      }),
      RUNS,
    );
  });
});

describe('properties over random catalogues', () => {
  const withList = (maxRoles: number) => graph(maxRoles).chain((g) => fc.tuple(fc.constant(g), roleList(g.names)));

  it('closure and isSelfIncluding match the definition, cycles included', () => {
    fc.assert(
      fc.property(graph(12), (g) => {
        const c = build(g);
        for (const [i, role] of g.names.entries()) {
          expect(sorted(c.closure(role))).toEqual(sorted(naiveClosure(g, role)));
          const selfIncluding = i !== g.fullAdmin && naiveReach(g, g.includes[i]!).has(role);
          expect(c.isSelfIncluding(role)).toBe(selfIncluding);
        }
      }),
      RUNS,
    );
  });

  it('minimalRoleList keeps the effective roles, is reduced, a fixed point and no longer', () => {
    fc.assert(
      fc.property(withList(12), ([g, roles]) => minimalProperties(build(g), roles)),
      RUNS,
    );
  });

  it('findings follow the definitions', () => {
    fc.assert(
      fc.property(withList(12), ([g, roles]) => {
        const c = build(g);
        const expected: RoleFinding[] = [];
        roles.forEach((role, index) => {
          if (!c.has(role)) expected.push({ kind: 'unknown', index, role });
          else if (c.isSelfIncluding(role)) expected.push({ kind: 'self-including', index, role });
          const firstIndex = roles.indexOf(role);
          if (firstIndex !== index) expected.push({ kind: 'duplicate', index, role, firstIndex });
          if (!c.has(role)) return;
          const j = roles.findIndex((s) => c.has(s) && s !== role && naiveClosure(g, s).has(role));
          if (j >= 0) expected.push({ kind: 'overlap', index, role, includedBy: roles[j]!, includedByIndex: j });
        });
        expect(analyzeRoleList(c, roles).findings).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('no smaller list of known roles has the same effective roles', () => {
    fc.assert(
      fc.property(withList(7), ([g, roles]) => {
        const c = build(g);
        const target = sorted(expandRoles(c, roles));
        const minimal = minimalRoleList(c, roles);
        for (let mask = 0; mask < 1 << g.names.length; mask++) {
          const subset = g.names.filter((_, i) => mask & (1 << i));
          if (subset.length >= minimal.length) continue;
          expect(sorted(expandRoles(c, subset))).not.toEqual(target);
        }
      }),
      RUNS,
    );
  });
});

describe('breaksLogin: the three rules (docs/RELEASES.md "Emulator behaviours")', () => {
  const cases: [string[], { 'as-reported': boolean; 'self-including': boolean; none: boolean }][] = [
    // MW/role.py roles_for_role: only a self-including role recurses; overlaps expand fine (5 roles).
    [
      ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE'],
      { 'as-reported': true, 'self-including': false, none: false },
    ],
    [['FULL_ADMIN', 'READONLY_ADMIN'], { 'as-reported': true, 'self-including': false, none: false }],
    [['POOL_READ', 'POOL_READ'], { 'as-reported': true, 'self-including': false, none: false }],
    [['PRIVILEGE_WRITE', 'POOL_READ'], { 'as-reported': true, 'self-including': true, none: false }],
    [['SYSTEM_PRODUCT_WRITE'], { 'as-reported': true, 'self-including': true, none: false }],
    [['NOT_A_ROLE', 'NOT_A_ROLE'], { 'as-reported': false, 'self-including': false, none: false }],
    [['READONLY_ADMIN'], { 'as-reported': false, 'self-including': false, none: false }],
  ];
  it.each(cases)('%j', (roles, expected) => {
    const a = analyzeRoleList(catalogue, roles);
    for (const rule of ['as-reported', 'self-including', 'none'] as const) {
      expect(breaksLogin(rule, a), rule).toBe(expected[rule]);
      // The list breaks login exactly when one of its findings does.
      expect(
        a.findings.some((f) => findingBreaksLogin(rule, f, a)),
        rule,
      ).toBe(expected[rule]);
    }
  });
});
