/**
 * Hostile-review findings, fifth round (desired state, issue 26; Ansible inventory import): each
 * test failed before its fix. The built binary against real `stor serve` processes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { stor } from '../helpers/runbook.js';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../helpers/embedded-meant.js';

const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function serve(): Promise<ServeProcess> {
  const server = await spawnServe(tempDir());
  servers.push(server);
  return server;
}

const envOf = (server: ServeProcess) => ({ ...clientEnv(), STOR_URL: server.baseUrl, STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(), STOR_USER: 'truenas_admin', STOR_SESSION: 'off', ...EMBEDDED_MEANT });

const file = (dir: string, name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('stor apply --keys-out: a run that changes nothing leaves no file behind', () => {
  it('refused for want of --yes (not a terminal), nothing changed, no empty keys file; the confirmed run then writes it', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', 'stor_state: 1\napi_keys:\n  - { name: ci, user: truenas_admin }\n');
    const keysOut = join(dir, 'keys.json');
    const refused = await run(['apply', '-f', state, '--keys-out', keysOut], 2);
    expect(refused.stderr).toContain('without confirmation');
    expect(existsSync(keysOut)).toBe(false);
    expect((await run(['api-key', 'list', '--json'])).stdout).not.toContain('"ci"');
    // Confirmed: the same command with --yes is not refused for a file the refused run made.
    await run(['apply', '-f', state, '--keys-out', keysOut, '--yes']);
    expect(JSON.parse(readFileSync(keysOut, 'utf8'))).toEqual([expect.objectContaining({ name: 'ci', key: expect.stringMatching(/^\d+-\w{64}$/) })]);
  });
});

describe('stor apply --keys-out: a run that makes no key leaves no file behind', () => {
  it('every key create failing (exit 1) writes no file of `[]` that would refuse the next run\'s --keys-out', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', 'stor_state: 1\napi_keys:\n  - { name: ci, user: nobody_here }\n');
    const keysOut = join(dir, 'keys.json');
    const failed = JSON.parse((await run(['apply', '-f', state, '--keys-out', keysOut, '--yes', '--json'], 1)).stdout) as { results: { status: string }[]; keys: unknown[] };
    expect(failed.results.map((r) => r.status)).toEqual(['failed']);
    expect(failed.keys).toEqual([]);
    expect(existsSync(keysOut)).toBe(false);
  });
});

describe('stor apply reports a group member it could not add', () => {
  it('a member who is no user on the target, nor one the file makes, is a failed change (exit 1), not "done" while the plan stays pending', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', 'stor_state: 1\ngroups:\n  - { name: ops, members: [ghost] }\n');
    const applied = JSON.parse((await run(['apply', '-f', state, '--yes', '--json'], 1)).stdout) as { results: { name: string; status: string; error?: string }[] };
    expect(applied.results).toEqual([expect.objectContaining({ name: 'ops', status: 'failed', error: expect.stringContaining('ghost') })]);
    // A member the file's users step makes is still expected only after that step: done, and no drift.
    const later = file(dir, 'later.yaml', 'stor_state: 1\ngroups:\n  - { name: devs, members: [bob] }\nusers:\n  - { name: bob, group: devs }\n');
    const ok = JSON.parse((await run(['apply', '-f', later, '--yes', '--json'])).stdout) as { results: { name: string; status: string }[] };
    expect(ok.results.map((r) => `${r.name} ${r.status}`)).toEqual(['devs done', 'bob done']);
    await run(['plan', '-f', later]);
  });
});

describe('stor profile import of a hostile Ansible inventory', () => {
  const KEY = `1-${'a'.repeat(64)}\n`;

  it('children that contain themselves through a YAML alias are refused as a loop (exit 2), not a crash', async () => {
    const dir = tempDir();
    const inventory = file(dir, 'inventory.yaml', 'all:\n  children: &x\n    site:\n      hosts: { nas1: { stor_url: "ws://127.0.0.1:9", stor_key_stdin: true } }\n      children: *x\n');
    const env = clientEnv();
    const r = await spawnStor(['profile', 'import', inventory, '--json'], { env, stdin: KEY });
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'BAD_PROFILE_FILE', message: expect.stringContaining('its own descendant') });
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
      expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'BAD_PROFILE_FILE', message: expect.stringContaining('line 2') });
      for (const secret of ['hunter2', 'correct', 'horse']) expect(r.stderr).not.toContain(secret);
    }
  });

  it('groups nested 20000 deep (in either order of the file) are refused past 1000 levels (exit 2), not a stack overflow', async () => {
    const dir = tempDir();
    const levels = 20_000;
    const sections = Array.from({ length: levels }, (_, i) => `[g${i}:children]\ng${i + 1}\n`);
    const host = `[g${levels}]\nnas1 stor_url=ws://127.0.0.1:9 stor_key_stdin=true\n`;
    for (const text of [sections.join('') + host, host + sections.reverse().join('')]) {
      const r = await spawnStor(['profile', 'import', file(dir, 'inventory.ini', text), '--json'], { env: clientEnv(), stdin: KEY });
      expect(r.code, r.stderr).toBe(2);
      expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'BAD_PROFILE_FILE', message: expect.stringContaining('more than 1000') });
    }
  });

  it('{{ variable }} references that multiply (30 per level, 10 levels) are refused past 64 kB (exit 2), not expanded 30^9 times', async () => {
    const dir = tempDir();
    const vars = Array.from({ length: 9 }, (_, i) => `      x${i}: "${`{{ x${i + 1} }}`.repeat(30)}"`);
    const text = ['all:', '  hosts:', '    nas1:', '      stor_key_stdin: true', '      stor_url: "ws://127.0.0.1:9/{{ x0 }}"', ...vars, '      x9: a', ''].join('\n');
    const r = await spawnStor(['profile', 'import', file(dir, 'inventory.yaml', text), '--json'], { env: clientEnv(), stdin: KEY, killAfterMs: 30_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'BAD_PROFILE_FILE', message: expect.stringContaining('more than 65536 characters') });
  });

  it('{{ constructor }} (a name every JavaScript object has) is a variable the host does not define (exit 2), not "function Object() …" saved in the URL', async () => {
    const dir = tempDir();
    const text = 'all:\n  hosts:\n    nas1:\n      stor_url: "ws://127.0.0.1:9/{{ constructor }}"\n      stor_key_stdin: true\n';
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
    for (let i = 0; i + 1 < levels; i++) for (const p of ['a', 'b']) ini += `[${p}${i}:children]\na${i + 1}\nb${i + 1}\n`;
    ini += `[a${levels - 1}]\nnas1 stor_url=ws://127.0.0.1:9 stor_key_stdin=true\n`;
    const inventory = file(dir, 'inventory.ini', ini);
    // Bounded: before the fix each host's groups were walked path by path, 2^40 of them.
    const r = await spawnStor(['profile', 'import', inventory, '--json'], { env: clientEnv(), stdin: KEY, killAfterMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const tags = (JSON.parse(r.stdout) as { imported: { name: string; tags: string[] }[] }).imported[0]!.tags;
    expect(tags).toHaveLength(2 * levels - 1);
  });
});

describe('stor apply --prune: a mark names the object stor made, not every later object of its name', () => {
  it('a group, user, privilege and API key stor made, deleted by hand and made again by hand, survive --prune', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', [
      'stor_state: 1',
      'groups: [{ name: ops }]',
      'users: [{ name: carol, group: ops }]',
      'privileges: [{ name: ops-read, groups: [ops], roles: [READONLY_ADMIN] }]',
      'api_keys: [{ name: ci, user: carol }]',
      '',
    ].join('\n'));
    await run(['apply', '-f', state, '--yes', '--keys-out', join(dir, 'keys.json')]);
    // Someone removes them by hand, then makes objects of the same names by hand.
    await run(['call', 'api_key.delete', JSON.stringify(JSON.parse((await run(['call', 'api_key.query', '[["name","=","ci"]]', '{"get":true}'])).stdout).id)]);
    await run(['privilege', 'delete', 'ops-read', '--yes']);
    await run(['user', 'delete', 'carol', '--yes']);
    await run(['group', 'delete', 'ops', '--yes']);
    await run(['group', 'create', 'ops']);
    await run(['user', 'create', 'carol', '--group', 'ops', '--password-disabled']);
    await run(['privilege', 'create', 'ops-read', '--groups', 'ops', '--roles', 'READONLY_ADMIN']);
    await run(['api-key', 'create', 'ci', '--user', 'carol']);
    const empty = file(dir, 'empty.yaml', 'stor_state: 1\n');
    const plan = JSON.parse((await run(['plan', '-f', empty, '--prune', '--json'])).stdout) as { changes: unknown[] };
    expect(plan.changes).toEqual([]);
  });

  it('what stor made itself is still pruned', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', 'stor_state: 1\ngroups: [{ name: ops }]\nusers: [{ name: dave }]\n');
    await run(['apply', '-f', state, '--yes']);
    await run(['apply', '-f', file(dir, 'empty.yaml', 'stor_state: 1\n'), '--prune', '--yes']);
    const groups = (await run(['group', 'list', '--json'])).stdout;
    expect(groups).not.toContain('"ops"');
    expect(groups).not.toContain('"dave"');
  });
});

describe('a desired-state dataset\'s user properties keep their value as written', () => {
  it('org.example:owner: alice is set as alice (not ALICE), on an existing dataset and on one the file makes; a second plan shows no change', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    await run(['dataset', 'create', 'tank/old']);
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', [
      'stor_state: 1',
      'datasets:',
      '  - { name: tank/old, properties: { "org.example:owner": alice } }',
      '  - { name: tank/new, properties: { "org.example:owner": Bob, compression: lz4 } }',
      '',
    ].join('\n'));
    const plan = JSON.parse((await run(['plan', '-f', state, '--json'], 7)).stdout) as { changes: { name: string; changes: { field: string; to: unknown }[] }[] };
    expect(plan.changes.flatMap((c) => c.changes.filter((f) => f.field.includes(':')).map((f) => `${c.name} ${f.to}`))).toEqual(['tank/old alice', 'tank/new Bob']);
    await run(['apply', '-f', state, '--yes']);
    for (const [id, owner] of [['tank/old', 'alice'], ['tank/new', 'Bob']]) {
      const entry = JSON.parse((await run(['call', 'pool.dataset.query', JSON.stringify([['id', '=', id]]), '{"get":true}'])).stdout) as { user_properties: Record<string, { value: string }> };
      expect(entry.user_properties['org.example:owner']?.value).toBe(owner);
    }
    await run(['plan', '-f', state]);
  });
});

describe('an API key\'s expiry with a fraction of a second', () => {
  it('is planned as the whole second the appliance keeps (MW api_key.py stores int(timestamp)): apply is done, exit 0, and plans no change after', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', 'stor_state: 1\napi_keys:\n  - { name: ci, user: truenas_admin, expires: "2099-01-01T00:00:00.567+02:00" }\n');
    const applied = JSON.parse((await run(['apply', '-f', state, '--yes', '--keys-out', join(dir, 'keys.json'), '--json'])).stdout) as { results: { status: string }[] };
    expect(applied.results.map((r) => r.status)).toEqual(['done']);
    await run(['plan', '-f', state]);
  });
});

describe('stor privilege suggest of a method no target has', () => {
  it('constructor or __proto__ (names every object has in JavaScript) is METHOD_NOT_FOUND, not "any logged-in user may call it"', async () => {
    const server = await serve();
    const env = envOf(server);
    for (const method of ['constructor', '__proto__', 'toString']) {
      const r = await spawnStor(['privilege', 'suggest', '--methods', method, '--json'], { env });
      expect(r.code, r.stdout).toBe(1);
      expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'METHOD_NOT_FOUND', message: expect.stringContaining(method) });
    }
  });
});

describe('stor plan -f on a file that is no state file', () => {
  it('a FIFO is refused at once (exit 2, LOCAL_FILE_REFUSED), not waited on forever; so is a regular file past 8 MB, before it is parsed', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'state.fifo');
    execFileSync('mkfifo', [fifo]);
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `stor_state: 1\n${'#'.repeat(9 * 1024 * 1024)}\n`);
    // No target needed: the file is read before any connection.
    const env = { ...clientEnv(), STOR_URL: 'ws://127.0.0.1:9', STOR_API_KEY: `1-${'a'.repeat(64)}` };
    for (const path of [fifo, big, '/dev/zero']) {
      const r = await spawnStor(['plan', '-f', path, '--json'], { env, killAfterMs: 20_000 });
      expect(r.code, `${path}: ${r.stderr}`).toBe(2);
      expect(JSON.parse(r.stderr).error.code).toBe('LOCAL_FILE_REFUSED');
    }
  });
});

describe('stor apply --prune: the API key stor logs in with', () => {
  it('a plan that deletes it is refused (PLAN_REFUSED, exit 1, nothing changed); a run logged in with another key prunes it', async () => {
    const server = await serve();
    const admin = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const keysOut = join(dir, 'keys.json');
    await admin(['apply', '-f', file(dir, 'with.yaml', 'stor_state: 1\napi_keys:\n  - { name: ci, user: truenas_admin }\n'), '--keys-out', keysOut, '--yes']);
    const ci = (JSON.parse(readFileSync(keysOut, 'utf8')) as { key: string }[])[0]!.key;
    // The runbook now logs in with the key stor made, then applies a file that no longer names it.
    const asCi = stor({ ...envOf(server), STOR_API_KEY: ci });
    const without = file(dir, 'without.yaml', 'stor_state: 1\n');
    const refused = await asCi(['apply', '-f', without, '--prune', '--yes', '--json'], 1);
    expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'PLAN_REFUSED', message: expect.stringContaining('it deletes API key ci, the key stor is logged in with') });
    expect((await admin(['api-key', 'list', '--json'])).stdout).toContain('"ci"');
    // Another key's run prunes it as before.
    await admin(['apply', '-f', without, '--prune', '--yes']);
    expect((await admin(['api-key', 'list', '--json'])).stdout).not.toContain('"ci"');
  });
});
