import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
};

/** A copy of this built checkout (its node_modules linked), so packing it rebuilds nothing the suite runs from. */
function builtCheckout(): string {
  const dir = tempDir('stor-checkout-');
  for (const entry of [
    'bin',
    'dist',
    'schema',
    'scripts',
    'src',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
  ]) {
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

describe('installing stor from a checkout', () => {
  it('is a package of its own name, whose command is stor (the registry\'s "stor" is another project)', () => {
    expect(pkg.name).not.toBe('stor');
    expect(Object.keys(pkg.bin)).toEqual(['stor']);
  });

  // `npx stor` in a checkout packs it (pacote's DirFetcher runs `prepare` in the checkout itself),
  // as `npm pack` does: a built checkout must not be rebuilt under a stor running from it.
  it('packing a built checkout leaves its bundle as it is, and the pack holds it', () => {
    const dir = builtCheckout();
    const before = statSync(join(dir, 'dist/bundle/first-stage.cjs'));
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts=false'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const after = statSync(join(dir, 'dist/bundle/first-stage.cjs'));
    expect({ ino: after.ino, mtime: after.mtimeMs }).toEqual({ ino: before.ino, mtime: before.mtimeMs });
    const [packed] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ name: string; files: Array<{ path: string }> }>;
    expect(packed!.name).toBe(pkg.name);
    expect(packed!.files.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        'bin/stor.js',
        'dist/bundle/first-stage.cjs',
        'dist/bundle/stor.cjs',
        'dist/bundle/vendor/undici.cjs',
      ]),
    );
    expect(execFileSync(process.execPath, [join(dir, 'bin/stor.js'), '--version'], { encoding: 'utf8' })).toBe(
      `${pkg.version}\n`,
    );
  });

  // The rebuild itself is `npm run build`: an `npm` first on PATH that only notes its arguments
  // shows prepare asks for it, without a full build here.
  it('a checkout whose sources changed since its build is rebuilt by prepare', () => {
    const dir = builtCheckout();
    const tools = tempDir('stor-npm-');
    writeFileSync(join(tools, 'npm'), `#!/bin/sh\necho "$@" > "${join(tools, 'asked')}"\n`, { mode: 0o755 });
    const env = { ...process.env, PATH: `${tools}:${process.env.PATH}` };
    execFileSync(process.execPath, ['scripts/prepare.mjs'], { cwd: dir, env, stdio: 'ignore' });
    expect(existsSync(join(tools, 'asked'))).toBe(false);
    cpSync(join(dir, 'src/cli.ts'), join(dir, 'src/zz-added.ts'));
    execFileSync(process.execPath, ['scripts/prepare.mjs'], { cwd: dir, env, stdio: 'ignore' });
    expect(readFileSync(join(tools, 'asked'), 'utf8')).toBe('run build\n');
  });

  // npm test's pretest is the same script: a checkout built from older locked dependencies must
  // not be tested with them, for the bundle holds them.
  it('a checkout whose locked dependencies changed since its build is rebuilt by prepare', () => {
    const dir = builtCheckout();
    const tools = tempDir('stor-npm-');
    writeFileSync(join(tools, 'npm'), `#!/bin/sh\necho "$@" > "${join(tools, 'asked')}"\n`, { mode: 0o755 });
    const env = { ...process.env, PATH: `${tools}:${process.env.PATH}` };
    const lock = join(dir, 'package-lock.json');
    writeFileSync(lock, readFileSync(lock, 'utf8').replace('"lockfileVersion"', '"requires": true, "lockfileVersion"'));
    execFileSync(process.execPath, ['scripts/prepare.mjs'], { cwd: dir, env, stdio: 'ignore' });
    expect(readFileSync(join(tools, 'asked'), 'utf8')).toBe('run build\n');
  });

  it('the README installs this project and runs it as stor, never the registry\'s "stor" or npx (nor do the docs it links)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.includes('npm install -g .')).toBe(true);
    const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    for (const text of [readme, ...docs.map((name) => readFileSync(join(ROOT, 'docs', name), 'utf8'))]) {
      expect(text.match(/.*npx stor\b.*/g) ?? []).toEqual([]);
      expect(text.match(/.*npm (?:install|i) -g stor(?![-\w]).*/g) ?? []).toEqual([]);
    }
  });
});
