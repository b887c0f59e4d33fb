/**
 * The built binary's `stor share` walk on the embedded target and against `stor serve --emulate
 * truenas-25.10.1` and `truenas-26.0` on port 0: per kind, create → show --json → update → show →
 * delete; --exist-ok re-run changes nothing; a delete without --yes off a terminal refuses and
 * changes nothing; bad input is the appliance's error and changes nothing.
 * The embedded and 25.10.1 walks run their commands in-process (storIn, the same `run()` the binary
 * calls; against stor serve on a session pool, as the agent runs them); the 26.0 walk is the built
 * binary's, through the session agent.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SessionPool } from '../../../src/core/session/pool.js';
import { stor } from '../../helpers/runbook.js';
import { storIn } from '../../helpers/run-stor.js';
import { storAgainstServe } from '../../helpers/release-targets.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

type Run = ReturnType<typeof stor> | ReturnType<typeof storIn>;

/** storAgainstServe in-process: the commands on a session pool, one login for the walk. */
async function storInAgainstServe(emulate: string): Promise<Run> {
  const server = await spawnServe(tempDir(), ['--emulate', emulate]);
  const pool = new SessionPool();
  onTestFinished(() => pool.closeAll());
  const env = {
    STOR_HOME: tempDir(),
    STOR_URL: server.baseUrl,
    STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    STOR_USER: 'truenas_admin',
  };
  return storIn(env, pool);
}
type Entry = Record<string, unknown> & { kind: string; id: number };

const listed = async (run: Run) => JSON.parse((await run(['share', 'list', '--json'])).stdout) as Entry[];
const shown = async (run: Run, ref: string) =>
  JSON.parse((await run(['share', 'show', ref, '--json'])).stdout) as Entry;

/** The walk, on whichever target `run` points at. */
async function shareWalk(run: Run) {
  await run(['mkdir', '-p', '/mnt/tank/exports']);
  await run(['mkdir', '-p', '/mnt/tank/docs']);

  // NFS: create, show, update, show, --exist-ok, delete.
  const nfsArgs = [
    'share',
    'nfs',
    'create',
    '/mnt/tank/exports',
    '--networks',
    '10.0.0.0/24',
    '--maproot-user',
    'root',
  ];
  await run(nfsArgs);
  const nfs = await shown(run, '/mnt/tank/exports');
  expect(nfs).toMatchObject({ kind: 'nfs', networks: ['10.0.0.0/24'], maproot_user: 'root', ro: false, enabled: true });
  const ref = `nfs:${nfs.id}`;
  expect(JSON.parse((await run([...nfsArgs, '--exist-ok', '--json'])).stdout)).toMatchObject({ changed: false });
  // The changes shown as field: old → new, then verified by a read.
  const updated = await run(['share', 'update', ref, '--ro', '--hosts', '192.168.1.7', '--comment', 'backups']);
  expect(updated.stderr).toContain(
    `${ref} (/mnt/tank/exports): hosts: (none) → 192.168.1.7; ro: false → true; comment: "" → "backups"`,
  );
  expect(await shown(run, ref)).toMatchObject({ ro: true, hosts: ['192.168.1.7'], comment: 'backups' });
  expect(JSON.parse((await run(['share', 'update', ref, '--ro', '--json'])).stdout)).toMatchObject({ changed: false });

  // SMB: create, show, update, show, --exist-ok.
  const smbArgs = ['share', 'smb', 'create', 'Docs', '/mnt/tank/docs', '--comment', 'team'];
  await run(smbArgs);
  const smb = await shown(run, 'docs');
  expect(smb).toMatchObject({
    kind: 'smb',
    name: 'Docs',
    path: '/mnt/tank/docs',
    purpose: 'DEFAULT_SHARE',
    readonly: false,
  });
  expect(JSON.parse((await run([...smbArgs, '--exist-ok', '--json'])).stdout)).toMatchObject({ changed: false });
  const smbUpdated = await run(['share', 'update', 'docs', '--ro', '--no-browsable']);
  expect(smbUpdated.stderr).toContain('readonly: false → true; browsable: true → false');
  expect(await shown(run, `smb:${smb.id}`)).toMatchObject({ readonly: true, browsable: false });
  await run(['share', 'disable', 'docs']);
  expect(await shown(run, 'docs')).toMatchObject({ enabled: false });

  // Bad input: the appliance's error, nothing changed.
  const before = await listed(run);
  for (const bad of [
    ['nfs', 'create', '/tmp/outside'],
    ['nfs', 'create', '/mnt/tank/exports', '--networks', '10.0.0.0/33'],
    ['nfs', 'create', '/mnt/tank/exports', '--hosts', 'a host'],
    ['smb', 'create', 'x'.repeat(300), '/mnt/tank/docs'],
    ['smb', 'create', 'DOCS', '/mnt/tank/docs'],
  ]) {
    const r = await run(['share', ...bad, '--json'], 1);
    expect(JSON.parse(r.stderr).error.message, bad.join(' ')).toBe('the appliance rejected the parameters');
  }
  const wrongs = await run(['share', 'smb', 'create', 'DOCS', '/mnt/tank/docs'], 1);
  expect(wrongs.stderr).toContain('sharingsmb_create.name: Share names are case-insensitive and must be unique');
  const badNet = await run(['share', 'nfs', 'create', '/mnt/tank/exports', '--networks', '10.0.0.0/33'], 1);
  expect(badNet.stderr).toContain('The following do not appear to be valid IPv4 or IPv6 networks: 10.0.0.0/33');
  const spaced = await run(['share', 'nfs', 'create', '/mnt/tank/exports', '--hosts', 'a host'], 1);
  expect(spaced.stderr).toContain('Cannot contain spaces or quotes: a host');
  const outside = await run(['share', 'nfs', 'create', '/tmp/outside'], 1);
  expect(outside.stderr).toContain('The path must reside within a pool mount point');
  const long = await run(['share', 'smb', 'create', 'x'.repeat(300), '/mnt/tank/docs'], 1);
  expect(long.stderr).toContain('share name must not exceed 80 characters in length');

  // Off a terminal a delete needs --yes (exit 2), and nothing is deleted.
  const refused = await run(['share', 'delete', 'docs'], 2);
  expect(refused.stderr).toContain('refusing to make changes without confirmation');
  expect(await listed(run)).toEqual(before);

  await run(['share', 'delete', 'docs', '--yes']);
  await run(['share', 'delete', ref, '--yes']);
  expect(await listed(run)).toEqual([]);
  await run(['share', 'delete', ref, '--yes', '--ignore-not-found']);
}

describe('stor share', () => {
  it('walks create, show, update, exist-ok, bad input and delete for NFS and SMB on the embedded target', async () => {
    const run = storIn({ STOR_HOME: tempDir() });
    await shareWalk(run);
    // Share refs and SMB purposes complete from the target (completion/values.ts).
    await run(['share', 'smb', 'create', 'media', '/mnt/tank/docs']);
    const refs = await run(['completion', '--values', 'share', '--prefix', 'm']);
    expect(refs.stdout.split('\n').filter(Boolean)).toEqual(['media']);
    const purposes = await run(['completion', '--values', 'smb-purpose', '--prefix', 'TIME']);
    expect(purposes.stdout.split('\n').filter(Boolean)).toEqual(['TIMEMACHINE_SHARE', 'TIME_LOCKED_SHARE']);
  }, 180_000);

  it('walks the same against stor serve --emulate truenas-25.10.1', async () => {
    await shareWalk(await storInAgainstServe('truenas-25.10.1'));
  }, 180_000);

  it('walks the same against stor serve --emulate truenas-26.0 (built binary, session agent)', async () => {
    await shareWalk(await storAgainstServe('truenas-26.0'));
  }, 180_000);
});
