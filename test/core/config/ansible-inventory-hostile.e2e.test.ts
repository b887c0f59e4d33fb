/**
 * `stor profile import` of a hostile Ansible inventory: loops, deep nesting, expanding variables
 * and secrets on a wrong line are refused with a clear error. Each test failed before its fix. The
 * built binary.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { file } from '../../helpers/served.js';

describe('stor profile import of a hostile Ansible inventory', () => {
  const KEY = `1-${'a'.repeat(64)}\n`;

  it('children that contain themselves through a YAML alias are refused as a loop (exit 2), not a crash', async () => {
    const dir = tempDir();
    const inventory = file(
      dir,
      'inventory.yaml',
      'all:\n  children: &x\n    site:\n      hosts: { nas1: { stor_url: "ws://127.0.0.1:9", stor_key_stdin: true } }\n      children: *x\n',
    );
    const env = clientEnv();
    const r = await spawnStor(['profile', 'import', inventory, '--json'], { env, stdin: KEY });
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'BAD_PROFILE_FILE',
      message: expect.stringContaining('its own descendant'),
    });
    expect(existsSync(join(env.STOR_CONFIG_DIR!, 'config.json'))).toBe(false);
  });

  it('an INI host line that is wrong is named by its line and word, never echoed: the password on it stays off stderr', async () => {
    const dir = tempDir();
    const lines = [
      'nas1 ansible_password="hunter2 stor_url=ws://127.0.0.1:9 stor_key_stdin=true', // a quote left open
      'nas1 ansible_password=correct horse stor_url=ws://127.0.0.1:9 stor_key_stdin=true', // a password with a space, unquoted
    ];
    for (const line of lines) {
      const inventory = file(dir, 'inventory.ini', `[nas]\n${line}\n`);
      const r = await spawnStor(['profile', 'import', inventory, '--json'], { env: clientEnv(), stdin: KEY });
      expect(r.code, r.stderr).toBe(2);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'BAD_PROFILE_FILE',
        message: expect.stringContaining('line 2'),
      });
      for (const secret of ['hunter2', 'correct', 'horse']) expect(r.stderr).not.toContain(secret);
    }
  });

  it('groups nested 20000 deep (in either order of the file) are refused past 1000 levels (exit 2), not a stack overflow', async () => {
    const dir = tempDir();
    const levels = 20_000;
    const sections = Array.from({ length: levels }, (_, i) => `[g${i}:children]\ng${i + 1}\n`);
    const host = `[g${levels}]\nnas1 stor_url=ws://127.0.0.1:9 stor_key_stdin=true\n`;
    for (const text of [sections.join('') + host, host + sections.reverse().join('')]) {
      const r = await spawnStor(['profile', 'import', file(dir, 'inventory.ini', text), '--json'], {
        env: clientEnv(),
        stdin: KEY,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'BAD_PROFILE_FILE',
        message: expect.stringContaining('more than 1000'),
      });
    }
  });

  it('{{ variable }} references that multiply (30 per level, 10 levels) are refused past 64 kB (exit 2), not expanded 30^9 times', async () => {
    const dir = tempDir();
    const vars = Array.from({ length: 9 }, (_, i) => `      x${i}: "${`{{ x${i + 1} }}`.repeat(30)}"`);
    const text = [
      'all:',
      '  hosts:',
      '    nas1:',
      '      stor_key_stdin: true',
      '      stor_url: "ws://127.0.0.1:9/{{ x0 }}"',
      ...vars,
      '      x9: a',
      '',
    ].join('\n');
    const r = await spawnStor(['profile', 'import', file(dir, 'inventory.yaml', text), '--json'], {
      env: clientEnv(),
      stdin: KEY,
      killAfterMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'BAD_PROFILE_FILE',
      message: expect.stringContaining('more than 65536 characters'),
    });
  });

  it('{{ constructor }} (a name every JavaScript object has) is a variable the host does not define (exit 2), not "function Object() …" saved in the URL', async () => {
    const dir = tempDir();
    const text =
      'all:\n  hosts:\n    nas1:\n      stor_url: "ws://127.0.0.1:9/{{ constructor }}"\n      stor_key_stdin: true\n';
    const env = clientEnv();
    const r = await spawnStor(['profile', 'import', file(dir, 'inventory.yaml', text), '--json'], { env, stdin: KEY });
    expect(r.code, r.stdout).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toContain('refers to constructor, which the host does not define');
    expect(existsSync(join(env.STOR_CONFIG_DIR!, 'config.json'))).toBe(false);
  });

  it('groups nested 40 deep, each with two parents (a diamond ladder), import at once with every group as a tag', async () => {
    const dir = tempDir();
    const levels = 40;
    let ini = '';
    for (let i = 0; i + 1 < levels; i++)
      for (const p of ['a', 'b']) ini += `[${p}${i}:children]\na${i + 1}\nb${i + 1}\n`;
    ini += `[a${levels - 1}]\nnas1 stor_url=ws://127.0.0.1:9 stor_key_stdin=true\n`;
    const inventory = file(dir, 'inventory.ini', ini);
    // Bounded: before the fix each host's groups were walked path by path, 2^40 of them.
    const r = await spawnStor(['profile', 'import', inventory, '--json'], {
      env: clientEnv(),
      stdin: KEY,
      killAfterMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const tags = (JSON.parse(r.stdout) as { imported: { name: string; tags: string[] }[] }).imported[0]!.tags;
    expect(tags).toHaveLength(2 * levels - 1);
  });
});
