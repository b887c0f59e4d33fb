import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../src/commands/index.js';
import { defineCommand, defineNoun } from '../../src/commands/framework/declare.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Calls that put a question to a terminal: a confirmation, an API key or password (and one-time code) prompt. */
const ASKS = /\b(confirmChange|readApiKey|readPassword)\(|'@inquirer\/prompts'/;

/** Relative imports (static and dynamic) of one source file, as paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const found = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)\.js'/g)].map((m) => m[1]!);
  return found.map((rel) => relative(SRC, resolve(dirname(join(SRC, file)), `${rel}.ts`)));
}

/**
 * Whether `file` asks: it makes one of those calls, or a module of its own folder that it imports
 * does (login.ts through login-password.ts). Shared helpers are judged by their call sites.
 */
function mayAsk(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  if (ASKS.test(readFileSync(join(SRC, file), 'utf8'))) return true;
  return importsOf(file).some((f) => dirname(f) === dirname(file) && mayAsk(f, seen));
}

describe("verbs' declarations for the session agent", () => {
  it('every verb says whether it changes anything', async () => {
    for (const [words, spec] of await allCommands())
      expect([words, spec.effect]).toEqual([words, expect.stringMatching(/^(read|change)$/)]);
  });

  it('a verb whose module can reach a prompt (confirmChange, a password or key prompt) declares asks, and only such a verb', async () => {
    const index = readFileSync(join(SRC, 'commands/index.ts'), 'utf8');
    const files = [...index.matchAll(/import\('\.\/([^']+)\.js'\)/g)].map((m) => `commands/${m[1]}.ts`);
    const nouns = [...index.matchAll(/from '\.\/([\w-]+)\/index\.js'/g)].map((m) => `commands/${m[1]}/index.ts`);
    // A noun's index lists its verbs, and a sub-noun's index (snapshot/task/index.ts) its own.
    const verbsOf = (noun: string): string[] =>
      importsOf(noun)
        .filter((f) => f.startsWith('commands/'))
        .flatMap((f) => (f.endsWith('/index.ts') ? verbsOf(f) : [f]));
    for (const noun of nouns) files.push(...verbsOf(noun));
    expect(files.length).toBeGreaterThan(40);
    for (const file of new Set(files)) {
      const declares = /\n\s+asks: true,/.test(readFileSync(join(SRC, file), 'utf8'));
      expect({ file, declares }).toEqual({ file, declares: mayAsk(file) });
    }
  });

  it("a noun's line loads the one declaration its module exports, beside the module's helpers", async () => {
    const declaration = defineCommand({
      summary: 'a verb',
      effect: 'read',
      examples: [],
      run: () => ({ data: null, view: { kind: 'json' } }),
    });
    const other = defineCommand({
      summary: 'another',
      effect: 'read',
      examples: [],
      run: () => ({ data: null, view: { kind: 'json' } }),
    });
    const noun = defineNoun('a noun', {
      one: async () => ({ helper: () => 1, shape: { effect: 'read', run: () => null }, declaration }),
      // Past the type check, which refuses a module without a declaration: the loader refuses it too.
      none: (async () => ({ helper: () => 1 })) as never,
      two: async () => ({ declaration, other }),
    });
    expect(Object.keys(noun.verbs)).toEqual(['one', 'none', 'two']);
    expect(await noun.verbs.one!()).toBe(declaration);
    await expect(noun.verbs.none!()).rejects.toThrow(/one defineCommand\(…\), not 0 \(its exports: helper\)/);
    await expect(noun.verbs.two!()).rejects.toThrow(/not 2/);
  });
});
