import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');

/**
 * `import { z } from 'zod'` takes zod's whole namespace object, its 60 locales among them: esbuild
 * then puts 755 KB of zod into the chunk every command loads, where `import * as z` keeps only
 * what is used (≈210 KB; bench/HISTORY.md). Type-only imports cost nothing.
 */
describe('zod imports', () => {
  it('no source file imports the value `z` from zod (use `import * as z from "zod"`)', () => {
    const offenders: string[] = [];
    for (const rel of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
      if (!rel.endsWith('.ts')) continue;
      const text = readFileSync(join(SRC, rel), 'utf8');
      for (const m of text.matchAll(/^import\s+(?!type\b)\{([^}]*)\}\s+from\s+'zod(?:\/[^']*)?';/gm)) {
        const names = m[1]!.split(',').map((n) => n.trim());
        if (names.includes('z')) offenders.push(rel);
      }
    }
    expect(offenders).toEqual([]);
  });
});
