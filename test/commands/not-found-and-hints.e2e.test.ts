import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { onTestFinished, describe, expect, it } from 'vitest';
import { SessionPool } from '../../src/core/session/pool.js';
import { clientEnv, remoteEnv } from '../helpers/client-env.js';
import { makeUserWithPrivilege, stor } from '../helpers/runbook.js';
import { storIn } from '../helpers/run-stor.js';
import { spawnServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';

type Run = ReturnType<typeof storIn>;
const errorOf = (r: { stderr: string }) =>
  JSON.parse(r.stderr).error as { code: string; kind: string; message: string; hint?: string };
const json = async (p: Promise<{ stdout: string }>) => JSON.parse((await p).stdout);

/** Every "no such thing" is NOT_FOUND, exit 1, naming the thing; dataset and snapshot from reads. */
async function notFoundWalk(run: Run) {
  const cases: [string[], string][] = [
    [['user', 'show', 'zz'], 'no user with name or uid "zz"'],
    [['user', 'delete', 'zz', '--yes'], 'no user with name or uid "zz"'],
    [['group', 'delete', 'zz', '--yes'], 'no local group with name or gid "zz"'],
    [['privilege', 'delete', 'zz', '--yes'], 'no privilege with id or name "zz"'],
    [['api-key', 'revoke', 'zz', '--yes'], 'no API key with id or name "zz"'],
    [['job', 'show', '9999'], 'no job 9999'],
    [['stat', '/mnt/tank/zz'], 'no file or directory /mnt/tank/zz'],
    [['ls', '/mnt/tank/zz'], 'no file or directory /mnt/tank/zz'],
    [['chmod', '750', '/mnt/tank/zz'], 'no file or directory /mnt/tank/zz'],
    [['chown', 'root', '/mnt/tank/zz'], 'no file or directory /mnt/tank/zz'],
    [['download', '/mnt/tank/zz', `${tempDir()}/zz`], 'no file or directory /mnt/tank/zz'],
    [['download', '-r', '/mnt/tank/zz', `${tempDir()}/zz`], 'no file or directory /mnt/tank/zz'],
    [['dataset', 'delete', 'tank/zz', '--yes'], 'no dataset tank/zz'],
    [['dataset', 'delete', 'tank/zz', '--dry-run'], 'no dataset tank/zz'],
    [['snapshot', 'delete', 'tank@zz', '--yes'], 'no snapshot tank@zz'],
    [['snapshot', 'rollback', 'tank@zz', '--yes'], 'no snapshot tank@zz'],
    [['profile', 'use', 'zz'], 'no profile named "zz"'],
  ];
  for (const [args, message] of cases) {
    const e = errorOf(await run([...args, '--json'], 1));
    expect({ args, code: e.code, kind: e.kind, message: e.message }).toEqual({
      args,
      code: 'NOT_FOUND',
      kind: 'failed',
      message: expect.stringContaining(message),
    });
  }
}

/** A second delete with --ignore-not-found exits 0 and says nothing was there; privilege create --exist-ok. */
async function reRunWalk(run: Run) {
  await run(['group', 'create', 'ops']);
  await run(['user', 'create', 'carol', '--group', 'ops', '--password-disabled']);
  await run(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'READONLY_ADMIN']);
  // privilege create --exist-ok: the same content is left as it is, quietly; other content is named.
  const same = await run([
    'privilege',
    'create',
    'ops',
    '--groups',
    'ops',
    '--roles',
    'READONLY_ADMIN',
    '--exist-ok',
    '--json',
  ]);
  expect(JSON.parse(same.stdout)).toMatchObject({
    name: 'ops',
    groups: ['ops'],
    roles: ['READONLY_ADMIN'],
    created: false,
    differs: [],
  });
  const other = await run(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'DATASET_READ', '--exist-ok']);
  expect(other.stderr).toContain('privilege ops exists with other roles than asked; nothing was changed');
  expect((await json(run(['privilege', 'show', 'ops', '--json']))).listed_roles).toEqual(['READONLY_ADMIN']);
  expect((await run(['privilege', 'create', 'ops', '--roles', 'READONLY_ADMIN'], 1)).stderr).toContain(
    'Object with this name already exists',
  );

  await run(['dataset', 'create', 'tank/rr']);
  await run(['snapshot', 'create', 'tank/rr@one']);
  await run(['api-key', 'create', 'carol-key', '--user', 'carol']);
  const deletes = [
    ['snapshot', 'delete', 'tank/rr@one', '--yes'],
    ['dataset', 'delete', 'tank/rr', '--yes'],
    ['api-key', 'revoke', 'carol-key', '--yes'],
    ['privilege', 'delete', 'ops', '--yes'],
    ['user', 'delete', 'carol', '--yes'],
    ['group', 'delete', 'ops', '--yes'],
  ];
  for (const args of deletes) await run([...args, '--ignore-not-found']);
  for (const args of deletes) {
    const again = await run([...args, '--ignore-not-found']);
    expect(again.stderr).toMatch(/^stor: no .*: nothing to delete \(--ignore-not-found\)\n$/);
    expect(await json(run([...args, '--ignore-not-found', '--json']))).toEqual({
      target: expect.any(Object),
      name: args[2],
      found: false,
      deleted: false,
    });
  }
}

/** Errors a flag would avoid name it. */
async function flagHintWalk(run: Run) {
  await run(['group', 'create', 'ops2']);
  expect(errorOf(await run(['group', 'create', 'ops2', '--json'], 1)).hint).toContain('`--exist-ok` exits 0');
  const parent = errorOf(await run(['dataset', 'create', 'tank/a9/b', '--json'], 1));
  expect(parent.hint).toBe(
    'tank/a9 does not exist; `stor dataset create tank/a9/b --parents` creates the missing parents too',
  );
  const mkdir = errorOf(await run(['mkdir', '/mnt/tank/projects/2025', '--json'], 1));
  expect(mkdir).toMatchObject({
    code: 'NOT_FOUND',
    message: 'cannot make /mnt/tank/projects/2025: its parent /mnt/tank/projects does not exist',
    hint: '`stor mkdir -p /mnt/tank/projects/2025` makes the missing parents too',
  });
}

// The walks run their commands in-process (storIn, the same `run()` the binary calls), a few dozen
// each; the binary's exit codes for these errors are checked once per target below.
const SLOW = 180_000;
const embedded = async () => {
  const env = clientEnv();
  return { run: storIn(env), bin: stor(env) };
};
// As the session agent runs them: one login for the walk, as the appliance allows 20 a minute from one address.
const served = async () => {
  const env = remoteEnv(await spawnServe(tempDir()));
  const pool = new SessionPool();
  onTestFinished(() => pool.closeAll());
  return { run: storIn(env, pool), bin: stor(env) };
};

describe('not found, re-runs and hints', () => {
  for (const [where, target] of [
    ['embedded', embedded],
    ['stor serve', served],
  ] as const) {
    it(
      `${where}: one NOT_FOUND, exit 1, naming the thing`,
      async () => {
        const { run, bin } = await target();
        await notFoundWalk(run);
        expect(errorOf(await bin(['user', 'show', 'zz', '--json'], 1)).code).toBe('NOT_FOUND');
      },
      SLOW,
    );
    it(
      `${where}: --ignore-not-found on every delete, privilege create --exist-ok`,
      async () => {
        const { run, bin } = await target();
        await reRunWalk(run);
        expect((await bin(['group', 'delete', 'ops', '--yes', '--ignore-not-found'])).stderr).toContain(
          'nothing to delete',
        );
      },
      SLOW,
    );
    it(`${where}: errors a flag would avoid name it`, async () => flagHintWalk((await target()).run), SLOW);
  }

  it(
    'a role denial names the roles the method needs, remote and embedded',
    async () => {
      const env = remoteEnv(await spawnServe(tempDir()));
      const admin = storIn(env);
      const key = await makeUserWithPrivilege(admin, 'rita', 'readers', ['READONLY_ADMIN']);
      const rita = stor({ ...env, STOR_API_KEY: key });
      await admin(['group', 'create', 'victims']);
      const denied = errorOf(await rita(['group', 'delete', 'victims', '--yes', '--json'], 5));
      expect(denied.hint).toBe(
        'the identity in use lacks the role this call needs: ACCOUNT_WRITE (or FULL_ADMIN); `stor whoami` lists its roles',
      );
      const viaCall = errorOf(await rita(['call', 'group.delete', '1', '--json'], 5));
      expect(viaCall.hint).toContain('ACCOUNT_WRITE (or FULL_ADMIN)');

      const local = clientEnv();
      const embeddedAdmin = storIn(local);
      const localKey = await makeUserWithPrivilege(embeddedAdmin, 'rita', 'readers', ['READONLY_ADMIN']);
      const embeddedRita = storIn({ ...local, STOR_API_KEY: localKey });
      expect(errorOf(await embeddedRita(['dataset', 'create', 'tank/x', '--json'], 5)).hint).toContain(
        'DATASET_WRITE (or FULL_ADMIN)',
      );
    },
    SLOW,
  );
});

describe('hints that work', () => {
  it('stor serve --port <in use> names the port and address and suggests --port 0', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const env = clientEnv();
      const r = await stor(env)(['serve', '--port', String(port), '--host', '127.0.0.1'], 1);
      expect(r.stderr).toBe(
        `stor: cannot listen on 127.0.0.1:${port}: port ${port} is in use on 127.0.0.1 (EADDRINUSE)\n` +
          'hint: `--port 0` picks a free port (stor serve prints it), or name another with `--port N`, or stop what holds this one\n',
      );
      // The port is tried before any state is created or seeded: a failed serve leaves nothing behind.
      expect(readdirSync(env.STOR_HOME!)).toEqual([]);
      const state = join(tempDir(), 'new-state');
      await stor(env)(['serve', '--port', String(port), '--host', '127.0.0.1', '--state', state], 1);
      expect(existsSync(state)).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('--url http://host suggests wss://, which login accepts, never a URL it refuses', async () => {
    const run = stor(clientEnv());
    const r = errorOf(await run(['--url', 'http://example.com', 'whoami', '--json'], 2));
    expect(r.hint).toBe('run `stor login --url wss://example.com`, or set STOR_API_KEY');
    // On this machine clear text is allowed, and kept.
    expect(errorOf(await run(['--url', 'http://127.0.0.1:9', 'whoami', '--json'], 2)).hint).toBe(
      'run `stor login --url ws://127.0.0.1:9`, or set STOR_API_KEY',
    );
  });
});
