import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import direction between the layers of src/ (.dependency-cruiser.cjs, docs/ARCHITECTURE.md):
 * commands → core and never back, the appliance below its server and transports, the first stage
 * over bare Node, no new import cycle. One cruise of src/ (≈ 300 files, a few seconds), judged here.
 */
const ROOT = join(import.meta.dirname, '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

interface Rule {
  name: string;
  comment?: string;
  from: { path?: string };
}
const config = createRequire(import.meta.url)(CONFIG) as { forbidden: Rule[] };
const why = new Map(config.forbidden.map((r) => [r.name, r.comment ?? '']));

let violations: IViolation[] = [];
beforeAll(async () => {
  const options = await extractDepcruiseOptions(CONFIG);
  const result = await cruise(['src'], { ...options, baseDir: ROOT });
  violations = (result.output as ICruiseResult).summary.violations;
}, 120_000);

/** The import (or the cycle, from where it was found) that breaks a rule. */
function importOf(v: IViolation): string {
  return v.cycle && v.cycle.length > 0 ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`;
}

/** The violations as a reader wants them: per rule, why it holds, then its first imports. */
function report(found: IViolation[]): string {
  const byRule = new Map<string, IViolation[]>();
  for (const v of found) byRule.set(v.rule.name, [...(byRule.get(v.rule.name) ?? []), v]);
  return [...byRule]
    .map(([rule, vs]) => {
      const lines = vs.slice(0, 8).map((v) => `    ${importOf(v)}`);
      if (vs.length > 8) lines.push(`    … and ${vs.length - 8} more`);
      return `  ${rule} (${vs.length}): ${why.get(rule) ?? ''}\n${lines.join('\n')}`;
    })
    .join('\n');
}

describe('layers (.dependency-cruiser.cjs)', () => {
  it('no import runs the wrong way between layers, and no import cycle but the known ones', () => {
    const found = violations.filter((v) => v.rule.severity !== 'ignore');
    expect(
      found.length,
      `imports that break the layers (fix the import, or change .dependency-cruiser.cjs and say why):\n${report(found)}\n`,
    ).toBe(0);
  });

  it('every known cycle still exists (a cycle that is gone leaves KNOWN_CYCLES)', () => {
    const known = readFileSync(CONFIG, 'utf8').match(/const KNOWN_CYCLES = \[([\s\S]*?)\n\];/)?.[1] ?? '';
    const entries = [...known.matchAll(/rule: '([^']+)', files: \[([^\]]+)\]/g)].map(
      ([, rule, files]) =>
        `${rule}: ${[...files!.matchAll(/'([^']+)'/g)]
          .map((m) => m[1])
          .sort()
          .join(' ')}`,
    );
    expect(entries.length).toBeGreaterThan(0);
    const ignored = new Set(
      violations
        .filter((v) => v.rule.severity === 'ignore' && v.cycle)
        .map(
          (v) =>
            `${v.rule.name}: ${[v.from, ...v.cycle!.map((c) => c.name)]
              .filter((n, i, all) => all.indexOf(n) === i)
              .sort()
              .join(' ')}`,
        ),
    );
    expect(
      entries.filter((e) => !ignored.has(e)),
      'known cycles no longer found: remove them from KNOWN_CYCLES in .dependency-cruiser.cjs',
    ).toEqual([]);
  });

  it("the first-stage-bare rule judges exactly the first stage's sources (scripts/first-stage-sources.cjs), and each of them exists", () => {
    // The one list scripts/bundle.mjs checks the bundle against and the rule is built from: a source
    // renamed or moved without it would leave the rule judging nothing.
    const allowed = [
      ...(createRequire(import.meta.url)(join(ROOT, 'scripts/first-stage-sources.cjs')) as string[]),
    ].sort();
    const rule = new RegExp(config.forbidden.find((r) => r.name === 'first-stage-bare')!.from.path!);
    const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
      .map((f) => `src/${f.split('\\').join('/')}`)
      .filter((f) => rule.test(f))
      .sort();
    expect(allowed.length).toBeGreaterThan(0);
    expect(sources).toEqual(allowed);
  });
});
