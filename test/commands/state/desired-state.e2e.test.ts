/**
 * Desired state against real `stor serve` processes: the commands run in-process (storIn, the
 * same `run()` the binary calls), and the built binary for what is the process's: a plan's drift
 * exit 7, --keys-out's 0600 file, the answer at a terminal.
 * export from a target with hand-made objects → apply to a fresh one → plan on both: no change;
 * drift after a hand edit exits 7; PRIVILEGE_WRITE refused on 25.10.1 with the minimal list and
 * accepted on 26.0; --prune keeps a hand-made group; --keep-going; --keys-out 0600.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { clientEnv } from '../../helpers/client-env.js';
import { stor } from '../../helpers/runbook.js';
import { runStor, storIn } from '../../helpers/run-stor.js';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { envOf } from '../../helpers/served.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { answerOnTerminal } from '../../helpers/terminal.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function serve(args: string[] = []): Promise<ServeProcess> {
  const server = await spawnServe(tempDir(), args);
  servers.push(server);
  return server;
}

/**
 * Every command here gets a generous --timeout: no test here is about the deadline, and the default
 * 30 s for each call only ends a hang. On a loaded machine (the suite beside other work) a `stor
 * serve` once took longer than that to answer `pool.dataset.query` during an apply.
 */
const PATIENT = ['--timeout', '120'];
const patient =
  <R>(run: (args: string[], expectCode?: number, stdin?: string) => Promise<R>) =>
  (args: string[], expectCode?: number, stdin?: string) =>
    run([...PATIENT, ...args], expectCode, stdin);

const on = (server: ServeProcess) => patient(storIn(envOf(server)));

const file = (name: string, text: string): string => {
  const path = join(tempDir('stor-state-'), name);
  writeFileSync(path, text);
  return path;
};

interface Plan {
  pending: boolean;
  changes: { kind: string; name: string; action: string; changes: { field: string; from: unknown; to: unknown }[] }[];
  overlaps: { privilege: string; minimal: string[] }[];
}

describe('stor export / plan / apply (built binary, stor serve)', () => {
  it('export → apply to a fresh target → plan on both: no change; a hand edit is drift (exit 7); --prune keeps a hand-made group; keys-out 0600', async () => {
    const [a, b] = await Promise.all([serve(), serve()]);
    const runA = on(a);
    const runB = on(b);
    const binB = patient(stor(envOf(b)));
    await runA(['group', 'create', 'ops']);
    await runA(['user', 'create', 'alice', '--group', 'ops', '--password-disabled', '--full-name', 'Alice Example']);
    await runA(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'DATASET_WRITE,READONLY_ADMIN']);
    await runA(['dataset', 'create', 'tank/ops', '--comments', 'ops share']);
    await runA(['call', 'pool.dataset.update', 'tank/ops', '{"compression":"ZSTD","quota":10737418240}']);
    await runA(['api-key', 'create', 'ci', '--user', 'alice']);

    const exported = (await runA(['export'])).stdout;
    expect(exported).toContain('stor_state: 1');
    expect(exported).toContain('roles: [ DATASET_WRITE, READONLY_ADMIN ]');
    expect(exported).toContain('quota: 10G');
    expect(exported).not.toMatch(/builtin_administrators\n/); // a built-in group is not a section entry
    const state = file('state.yaml', exported);

    await runA(['plan', '-f', state]);
    const before = JSON.parse((await runB(['plan', '-f', state, '--json'], 7)).stdout) as Plan;
    expect(before.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(
      expect.arrayContaining([
        'create groups ops',
        'create users alice',
        'create privileges ops',
        'create datasets tank/ops',
        'create api_keys ci',
      ]),
    );
    const keysOut = join(tempDir('stor-keys-'), 'keys.json');
    await binB(['apply', '-f', state, '--yes', '--keys-out', keysOut]);
    expect(statSync(keysOut).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(readFileSync(keysOut, 'utf8')) as { name: string; key: string }[];
    expect(keys.map((k) => k.name)).toContain('ci');
    expect(keys.find((k) => k.name === 'ci')!.key).toMatch(/^\d+-\w+/);
    expect(readFileSync(state, 'utf8')).not.toContain(keys.find((k) => k.name === 'ci')!.key);
    // No change on either; a second apply plans none either.
    await runA(['plan', '-f', state]);
    await runB(['plan', '-f', state]);
    expect((await runB(['apply', '-f', state, '--yes'])).stderr).toContain('no changes');
    // keys-out never overwrites: a plan that makes a key refuses an existing file before changing anything.
    const withKey = file('more.yaml', `stor_state: 1\napi_keys:\n  - { name: ci2, user: alice }\n`);
    const refused = await runB(['apply', '-f', withKey, '--yes', '--keys-out', keysOut], 2);
    expect(refused.stderr).toContain('exists');
    await runB(['plan', '-f', withKey], 7);

    // Someone changes the privilege by hand: drift, exit 7, the roles field named.
    await runB(['privilege', 'update', 'ops', '--roles', 'READONLY_ADMIN']);
    const drift = await binB(['plan', '-f', state], 7);
    expect(drift.stdout).toMatch(/~ update\s+privilege ops\s+roles: READONLY_ADMIN → DATASET_WRITE,READONLY_ADMIN/);
    const driftJson = JSON.parse((await runB(['plan', '-f', state, '--json'], 7)).stdout) as Plan;
    expect(driftJson.changes).toEqual([
      {
        kind: 'privileges',
        name: 'ops',
        action: 'update',
        changes: [{ field: 'roles', from: ['READONLY_ADMIN'], to: ['DATASET_WRITE', 'READONLY_ADMIN'] }],
      },
    ]);

    // --prune: on B, ops/alice/the privilege/the dataset/ci were made by stor (marked); "handmade" was not.
    await runB(['group', 'create', 'handmade']);
    const empty = file('empty.yaml', 'stor_state: 1\n');
    const prunePlan = JSON.parse((await runB(['plan', '-f', empty, '--prune', '--json'], 7)).stdout) as Plan;
    const deletes = prunePlan.changes.map((c) => `${c.action} ${c.kind} ${c.name}`);
    expect(deletes).toEqual([
      'delete api_keys ci',
      'delete datasets tank/ops',
      'delete privileges ops',
      'delete users alice',
      'delete groups ops',
    ]);
    await runB(['apply', '-f', empty, '--prune', '--yes']);
    const groups = (await runB(['group', 'list', '--json'])).stdout;
    expect(groups).toContain('"handmade"');
    expect(groups).not.toContain('"ops"');
    // On A nothing was made by stor: --prune plans nothing there.
    await runA(['plan', '-f', empty, '--prune']);
  });

  it('PRIVILEGE_WRITE: refused on 25.10.1 with the lockout and the minimal list, accepted on 26.0', async () => {
    const [old, next] = await Promise.all([
      serve(['--emulate', 'truenas-25.10.1']),
      serve(['--emulate', 'truenas-26.0']),
    ]);
    const state = file(
      'pw.yaml',
      [
        'stor_state: 1',
        'groups:',
        '  - name: editors',
        'privileges:',
        '  - name: editors',
        '    groups: [editors]',
        '    roles: [PRIVILEGE_WRITE, READONLY_ADMIN]',
        '',
      ].join('\n'),
    );
    const refused = await on(old)(['plan', '-f', state], 1);
    expect(JSON.parse((await on(old)(['plan', '-f', state, '--json'], 1)).stderr).error.code).toBe(
      'ROLE_LIST_LOCKS_OUT',
    );
    expect(refused.stderr).toContain('PRIVILEGE_WRITE');
    expect(refused.stderr).toContain('the minimal list that does not: READONLY_ADMIN');
    const accepted = JSON.parse((await on(next)(['plan', '-f', state, '--json'], 7)).stdout) as Plan;
    expect(accepted.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'create groups editors',
      'create privileges editors',
    ]);
  });

  it('checks: unknown keys name their path; unknown roles; overlaps and --normalize; no administrator left is refused unless --force; --keep-going', async () => {
    const s = await serve();
    const run = on(s);
    const bad = await run(
      ['plan', '-f', file('bad.yaml', 'stor_state: 1\nprivileges:\n  - name: x\n    role: [READONLY_ADMIN]\n')],
      2,
    );
    expect(bad.stderr).toContain('privileges[0].role: unknown key');
    const unknown = await run(
      ['plan', '-f', file('u.yaml', 'stor_state: 1\nprivileges:\n  - { name: x, roles: [NO_SUCH_ROLE] }\n')],
      2,
    );
    expect(unknown.stderr).toContain('NO_SUCH_ROLE');

    const overlap = file(
      'o.yaml',
      'stor_state: 1\nprivileges:\n  - { name: ro, roles: [READONLY_ADMIN, DATASET_READ] }\n',
    );
    const asWritten = JSON.parse((await run(['plan', '-f', overlap, '--json'], 7)).stdout) as Plan;
    expect(asWritten.overlaps).toEqual([expect.objectContaining({ privilege: 'ro', minimal: ['READONLY_ADMIN'] })]);
    const normalized = JSON.parse((await run(['plan', '-f', overlap, '--normalize', '--json'], 7)).stdout) as Plan;
    expect(normalized.changes[0]!.changes).toContainEqual({ field: 'roles', from: [], to: ['READONLY_ADMIN'] });

    const noAdmin = file('a.yaml', 'stor_state: 1\nusers:\n  - { name: truenas_admin, password_disabled: true }\n');
    const refused = await run(['plan', '-f', noAdmin], 1);
    expect(JSON.parse((await run(['plan', '-f', noAdmin, '--json'], 1)).stderr).error.code).toBe('PLAN_REFUSED');
    expect(refused.stderr).toContain('no unlocked, password-enabled administrator');
    await run(['plan', '-f', noAdmin, '--force'], 7);
    // Taking the roles of the identity stor is logged in as (truenas_admin, through Local Administrator) is refused too.
    const mine = file(
      'me.yaml',
      'stor_state: 1\nprivileges:\n  - { name: Local Administrator, roles: [READONLY_ADMIN] }\n',
    );
    const own = await run(['plan', '-f', mine], 1);
    expect(own.stderr).toContain('removes roles from truenas_admin, the identity stor is using: ');
    expect(own.stderr).toContain('FULL_ADMIN');

    // A user made without a group gets 25.10.1's own group, marked as stor's: pruned with the user, never while the user stays.
    const bob = file('bob.yaml', 'stor_state: 1\nusers:\n  - { name: bob }\n');
    await run(['apply', '-f', bob, '--yes']);
    await run(['plan', '-f', bob, '--prune']);
    const pruned = JSON.parse(
      (await run(['plan', '-f', file('none.yaml', 'stor_state: 1\n'), '--prune', '--json'], 7)).stdout,
    ) as Plan;
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'delete users bob',
      'delete groups bob',
    ]);

    const twoDatasets = file(
      'k.yaml',
      'stor_state: 1\ndatasets:\n  - { name: nopool/x }\n  - { name: tank/kept, comments: kept }\n',
    );
    const stopped = JSON.parse((await run(['apply', '-f', twoDatasets, '--yes', '--json'], 1)).stdout) as {
      results: { name: string; status: string }[];
    };
    expect(stopped.results.map((r) => `${r.name} ${r.status}`)).toEqual(['nopool/x failed', 'tank/kept not_attempted']);
    const going = JSON.parse(
      (await run(['apply', '-f', twoDatasets, '--yes', '--keep-going', '--json'], 1)).stdout,
    ) as { results: { name: string; status: string }[] };
    expect(going.results.map((r) => `${r.name} ${r.status}`)).toEqual(['nopool/x failed', 'tank/kept done']);
    expect(existsSync(twoDatasets)).toBe(true);
  });

  it('--targets: plan on every target (the fleet drifts when one does), apply with one --yes, then no drift anywhere', async () => {
    const [one, two] = await Promise.all([serve(), serve()]);
    const env = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT, STOR_USER: 'truenas_admin' };
    for (const [name, server] of [
      ['nas1', one],
      ['nas2', two],
    ] as const) {
      const login = await runStor(
        [...PATIENT, 'login', '--url', server.baseUrl, '--api-key-stdin', '--profile', name],
        {
          env,
          stdin: readFileSync(server.adminKeyFile, 'utf8').trim(),
        },
      );
      expect(login.code, login.stderr).toBe(0);
    }
    const fleet = patient(storIn(env));
    const state = file(
      'fleet.yaml',
      'stor_state: 1\ngroups:\n  - { name: fleetops }\nprivileges:\n  - { name: fleetops, groups: [fleetops], roles: [READONLY_ADMIN] }\n',
    );
    const before = JSON.parse((await fleet(['--targets', 'nas1,nas2', 'plan', '-f', state, '--json'], 7)).stdout) as {
      target: string;
      exit_code: number;
    }[];
    expect(before.map((o) => [o.target, o.exit_code])).toEqual([
      ['nas1', 7],
      ['nas2', 7],
    ]);
    await fleet(['--targets', 'nas1,nas2', 'apply', '-f', state, '--yes']);
    await fleet(['--targets', 'nas1,nas2', 'plan', '-f', state]);
    await on(two)(['privilege', 'update', 'fleetops', '--roles', 'DATASET_READ']);
    const after = JSON.parse((await fleet(['--targets', 'nas1,nas2', 'plan', '-f', state, '--json'], 7)).stdout) as {
      target: string;
      exit_code: number;
    }[];
    expect(after.map((o) => [o.target, o.exit_code])).toEqual([
      ['nas1', 0],
      ['nas2', 7],
    ]);
    const keysOut = await fleet(
      ['--targets', 'nas1,nas2', 'apply', '-f', state, '--yes', '--keys-out', join(tempDir(), 'k.json')],
      2,
    );
    expect(keysOut.stderr).toContain('--keys-out');
  });

  it('plan reads one query per kind, however many objects the file names (calls counted on the wire)', async () => {
    const server = await serve();
    // A WebSocket relay that counts the methods the client sends, as raw frames.
    const counts = new Map<string, number>();
    const relay = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    relay.on('connection', (client, req) => {
      const upstream = new WebSocket(`${server.baseUrl}${req.url}`);
      const queued: string[] = [];
      upstream.on('open', () => queued.splice(0).forEach((m) => upstream.send(m)));
      upstream.on('message', (data) => client.send(data.toString()));
      upstream.on('close', () => client.close());
      client.on('close', () => upstream.close());
      client.on('message', (data) => {
        const text = data.toString();
        const method = (JSON.parse(text) as { method?: string }).method;
        if (method) counts.set(method, (counts.get(method) ?? 0) + 1);
        if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
        else queued.push(text);
      });
    });
    await new Promise((r) => relay.once('listening', r));
    const port = (relay.address() as { port: number }).port;
    try {
      const env = {
        ...clientEnv(),
        STOR_URL: `ws://127.0.0.1:${port}`,
        STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
        STOR_USER: 'truenas_admin',
        STOR_SESSION: 'off',
        ...EMBEDDED_MEANT,
      };
      const many = (n: number) =>
        file(
          `n${n}.yaml`,
          [
            'stor_state: 1',
            'groups:',
            ...Array.from({ length: n }, (_, i) => `  - { name: g${i}, members: [] }`),
            'privileges:',
            ...Array.from({ length: n }, (_, i) => `  - { name: p${i}, groups: [g${i}], roles: [READONLY_ADMIN] }`),
            '',
          ].join('\n'),
        );
      const callsFor = async (n: number) => {
        counts.clear();
        await patient(storIn(env))(['plan', '-f', many(n), '--json'], 7);
        return new Map(counts);
      };
      const few = await callsFor(3);
      const lots = await callsFor(60);
      expect(lots).toEqual(few);
      for (const method of ['group.query', 'user.query', 'privilege.query', 'api_key.query', 'pool.dataset.query'])
        expect(few.get(method)).toBe(1);
    } finally {
      await new Promise((r) => relay.close(r));
    }
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'on a terminal: the plan, one question; a privilege made by hand while it waited stops the run (PLAN_CHANGED), nothing changed',
    async () => {
      const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
      const run = patient(stor(env));
      const state = file(
        't.yaml',
        'stor_state: 1\ngroups:\n  - { name: held }\nprivileges:\n  - { name: held, groups: [held], roles: [READONLY_ADMIN] }\n',
      );
      const r = await answerOnTerminal([...PATIENT, 'apply', '-f', state], env, 'y', async () => {
        await run(['privilege', 'create', 'held', '--roles', 'DATASET_READ']);
      });
      expect(r.shown).toContain('+ create');
      expect(r.shown).toContain('(y/N)');
      expect(r.shown).toContain(
        'the target changed since the plan you confirmed: privileges held (now: update, was: create)',
      );
      expect(r.code).toBe(1);
      expect((await run(['group', 'list', '--json'])).stdout).not.toContain('"held"');
      // Unchanged, the answer yes applies it.
      const ok = await answerOnTerminal([...PATIENT, 'apply', '-f', state], env, 'y');
      expect(ok.code, ok.shown).toBe(0);
      await run(['plan', '-f', state]);
    },
  );
});

describe('stor plan: a dataset change the target would refuse', () => {
  it("is refused by plan and apply with 25.10.1's words (as `dataset update --dry-run` says them), before anything changes", async () => {
    const s = await serve();
    const run = on(s);
    await run(['dataset', 'create', 'tank/ds']);
    await run(['dataset', 'update', 'tank/ds', '--compression', 'lz4', '--yes']);
    // 2 GiB used (a sparse file in the emulator's tree): a 1G quota is below it.
    const big = join(s.stateDir, 'mnt', 'tank/ds/big');
    writeFileSync(big, '');
    truncateSync(big, 2 * 1024 ** 3);
    const badFile = (props: string) =>
      file(
        'ds.yaml',
        `stor_state: 1\ngroups:\n  - { name: early }\ndatasets:\n  - { name: tank/ds, properties: { ${props} } }\n`,
      );
    for (const [props, flags, words] of [
      ['compression: bogus', ['--compression', 'bogus'], "data.compression: Input should be 'ON', 'OFF', 'LZ4'"],
      [
        'recordsize: 100K',
        ['--recordsize', '100K'],
        "pool_dataset_update.recordsize: '100K' is an invalid recordsize.",
      ],
      [
        'quota: 1G',
        ['--quota', '1G'],
        `[EFAULT] Failed to update properties: ZFSException("cannot set property for 'tank/ds': size is less than current used or reserved space")`,
      ],
    ] as const) {
      const state = badFile(props);
      const said = (await run(['dataset', 'update', 'tank/ds', ...flags, '--dry-run'], 1)).stderr.trim();
      expect(said).toContain(words);
      const planned = await run(['plan', '-f', state], 1);
      expect(planned.stderr).toContain(said);
      expect(planned.stderr).toContain(
        "the file's dataset tank/ds: the target would refuse this update; nothing was changed",
      );
      expect((await run(['apply', '-f', state, '--yes'], 1)).stderr).toContain(said);
    }
    // A size that is not one is the file's fault, named by its dataset.
    const lots = await run(['plan', '-f', badFile('quota: lots')], 2);
    expect(JSON.parse((await run(['plan', '-f', badFile('quota: lots'), '--json'], 2)).stderr).error.code).toBe(
      'BAD_STATE_FILE',
    );
    expect(lots.stderr).toContain('datasets tank/ds: properties.quota: not a size: "lots"');
    // Nothing was applied: not the group that comes first, not the dataset.
    expect((await run(['group', 'list', '--json'])).stdout).not.toContain('"early"');
    const shown = JSON.parse((await run(['dataset', 'show', 'tank/ds', '--json'])).stdout) as {
      properties: Record<string, { value: string }>;
    };
    expect([
      shown.properties.compression!.value,
      shown.properties.recordsize!.value,
      shown.properties.quota!.value,
    ]).toEqual(['LZ4', '128K', null]);
    // The same file with values 25.10.1 takes plans the change (sizes and words as a file writes them).
    const good = JSON.parse(
      (await run(['plan', '-f', badFile('compression: zstd, recordsize: 1M, quota: 10G'), '--json'], 7)).stdout,
    ) as Plan;
    expect(good.changes.find((c) => c.kind === 'datasets')!.changes).toEqual([
      { field: 'quota', from: null, to: '10G' },
      { field: 'compression', from: 'LZ4', to: 'ZSTD' },
      { field: 'recordsize', from: '128K', to: '1M' },
    ]);
  });
});

describe('stor apply: dataset values converge as the appliance stores them', () => {
  it('numbers, booleans, sizes and words in any case apply in one run and the next plan exits 0', async () => {
    const run = on(await serve());
    const state = file(
      'values.yaml',
      'stor_state: 1\ndatasets:\n  - name: tank/v\n    properties: { copies: 2, readonly: true, atime: off, quota: 10G, compression: zstd, recordsize: 131072 }\n',
    );
    // Made, then changed: both converge.
    expect((await run(['apply', '-f', state, '--yes'])).code).toBe(0);
    await run(['plan', '-f', state]);
    const changed = file(
      'changed.yaml',
      'stor_state: 1\ndatasets:\n  - name: tank/v\n    properties: { copies: 3, readonly: false, quota: 20G }\n',
    );
    const planned = JSON.parse((await run(['plan', '-f', changed, '--json'], 7)).stdout) as Plan;
    expect(planned.changes[0]!.changes).toEqual([
      { field: 'quota', from: '10G', to: '20G' },
      { field: 'readonly', from: 'ON', to: 'OFF' },
      { field: 'copies', from: 2, to: 3 },
    ]);
    await run(['apply', '-f', changed, '--yes']);
    await run(['plan', '-f', changed]);
    const shown = JSON.parse((await run(['dataset', 'show', 'tank/v', '--json'])).stdout) as {
      properties: Record<string, { value: string }>;
    };
    expect([
      shown.properties.copies!.value,
      shown.properties.readonly!.value,
      shown.properties.recordsize!.value,
    ]).toEqual(['3', 'OFF', '128K']);
  });
});

describe('stor plan: a dataset create the target would refuse', () => {
  it("is refused by plan and apply with 25.10.1's words before anything changes", async () => {
    const run = on(await serve());
    const state = file(
      'create.yaml',
      'stor_state: 1\ngroups:\n  - { name: early }\ndatasets:\n  - { name: tank/ok }\n  - { name: tank/rs, properties: { recordsize: 3K } }\n',
    );
    const planned = await run(['plan', '-f', state], 1);
    expect(planned.stderr).toContain("pool_dataset_create.recordsize: '3K' is an invalid recordsize.");
    expect(planned.stderr).toContain(
      "the file's dataset tank/rs: the target would refuse this create; nothing was changed",
    );
    expect((await run(['apply', '-f', state, '--yes'], 1)).stderr).toContain("'3K' is an invalid recordsize.");
    const copies = file('copies.yaml', 'stor_state: 1\ndatasets:\n  - { name: tank/c, properties: { copies: 9 } }\n');
    expect((await run(['apply', '-f', copies, '--yes'], 1)).stderr).toContain(
      "[EFAULT] Failed to create dataset: cannot create 'tank/c': 'copies' must be one of '1 | 2 | 3'",
    );
    // Nothing was applied: not the group that comes first, not the dataset that would have been fine.
    expect((await run(['group', 'list', '--json'])).stdout).not.toContain('"early"');
    expect((await run(['dataset', 'list', '--json'])).stdout).not.toMatch(/tank\/(ok|rs|c)"/);
  });
});
