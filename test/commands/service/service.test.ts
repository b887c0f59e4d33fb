/**
 * `stor service list|start|stop|enable|disable`, in-process against the embedded appliance and
 * `stor serve` stand-ins on port 0: idempotent changes, consent before a stop, dry runs that fail
 * as the real call does, --targets, and the roles `privilege suggest --for` names.
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor, type RunResult } from '../../helpers/run-stor.js';
import { bothReleasesEnv } from '../../helpers/release-targets.js';

function embedded() {
  const env = clientEnv();
  const run = (args: string[], extra: Record<string, string> = {}) => runStor(args, { env: { ...env, ...extra } });
  return { home: env.STOR_HOME!, env, run };
}

const outcome = (r: RunResult) => ({ code: r.code, stderr: r.stderr });

async function stateOf(run: (args: string[]) => Promise<RunResult>, name: string) {
  const r = await run(['service', 'list', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { service: string; state: string; enable: boolean }[]).find(
    (s) => s.service === name,
  );
}

describe('stor service list', () => {
  it("lists a fresh appliance's services by name, stopped and not started at boot; piped as tab-separated rows", async () => {
    const { run } = embedded();
    const json = await run(['service', 'list', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as { id: number; service: string; state: string; enable: boolean }[];
    expect(listed.map((s) => s.service)).toEqual(['cifs', 'ftp', 'iscsitarget', 'nfs', 'nvmet', 'snmp', 'ssh', 'ups']);
    expect(listed[0]).toEqual({ id: 4, service: 'cifs', state: 'STOPPED', enable: false });
    const piped = await run(['service', 'list']);
    expect(piped.stdout.split('\n')[3]).toBe('nfs\tSTOPPED\tfalse');
  });
});

describe('stor service start and stop', () => {
  it('start runs it; again says it already runs and changes nothing (exit 0, "changed": false)', async () => {
    const { home, run } = embedded();
    const first = await run(['service', 'start', 'nfs', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      service: 'nfs',
      action: 'start',
      dry_run: false,
      changed: true,
      state: 'RUNNING',
      enable: false,
      target: { kind: 'embedded', stateDir: home },
    });
    const again = await run(['service', 'start', 'nfs']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('stor: nfs is already running; nothing was changed\n');
    expect(again.stdout).toContain('changed\tfalse\n');
    expect((await stateOf(run, 'nfs'))?.state).toBe('RUNNING');
  });

  it('stop asks first: off a terminal without --yes it refuses and the service keeps running; --dry-run stops nothing; --yes stops it', async () => {
    const { run } = embedded();
    expect((await run(['service', 'start', 'cifs'])).code).toBe(0);
    const refused = await run(['service', 'stop', 'cifs', '--json']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
    expect((await stateOf(run, 'cifs'))?.state).toBe('RUNNING');
    const dry = await run(['service', 'stop', 'cifs', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, changed: true, state: 'STOPPED' });
    expect((await stateOf(run, 'cifs'))?.state).toBe('RUNNING');
    const stopped = await run(['service', 'stop', 'cifs', '--yes', '--json']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ changed: true, state: 'STOPPED' });
    // A stopped service: nothing to ask, nothing sent.
    const again = await run(['service', 'stop', 'cifs']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('stor: cifs is already stopped; nothing was changed\n');
  });

  it('an unknown name is NOT_FOUND (exit 1) naming the services there are', async () => {
    const { run } = embedded();
    const r = await run(['service', 'start', 'smb', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'no service "smb"',
      hint: 'the services are cifs, ftp, iscsitarget, nfs, nvmet, snmp, ssh, ups (`stor service list`)',
    });
  });

  it("a sharing role that is not the service's: the dry run fails as the real call does, and nothing changes (MW/plugins/service_/utils.py:13-38)", async () => {
    const { home, run } = embedded();
    expect((await run(['service', 'list'])).code).toBe(0);
    const t = await openTestAppliance(undefined, home);
    const { key } = await createUserWithKey(t, 'nfsop', { privilegeRoles: ['SHARING_NFS_WRITE', 'SERVICE_READ'] });
    t.appliance.close();
    const dry = await run(['service', 'start', 'cifs', '--dry-run'], { STOR_API_KEY: key });
    const real = await run(['service', 'start', 'cifs'], { STOR_API_KEY: key });
    expect(outcome(dry)).toEqual(outcome(real));
    expect(dry.code).not.toBe(0);
    expect(dry.stderr).toContain('cifs: authenticated session lacks privilege to start service');
    expect((await stateOf(run, 'cifs'))?.state).toBe('STOPPED');
    // Its own service it may start.
    expect((await run(['service', 'start', 'nfs'], { STOR_API_KEY: key })).code).toBe(0);
  });

  it('without a role that may change services, the dry run and the call are refused alike (exit 5)', async () => {
    const { home, run } = embedded();
    expect((await run(['service', 'list'])).code).toBe(0);
    const t = await openTestAppliance(undefined, home);
    const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['SERVICE_READ'] });
    t.appliance.close();
    const dry = await run(['service', 'enable', 'nfs', '--dry-run'], { STOR_API_KEY: key });
    const real = await run(['service', 'enable', 'nfs'], { STOR_API_KEY: key });
    expect(outcome(dry)).toEqual(outcome(real));
    expect(dry.code).toBe(5);
    expect((await stateOf(run, 'nfs'))?.enable).toBe(false);
  });
});

describe('stor service enable and disable', () => {
  it('set whether it starts at boot, not whether it runs; idempotent both ways', async () => {
    const { run } = embedded();
    const on = await run(['service', 'enable', 'ssh', '--json']);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ service: 'ssh', changed: true, enable: true, state: 'STOPPED' });
    const again = await run(['service', 'enable', 'ssh']);
    expect(again.stderr).toBe('stor: ssh is already started at boot; nothing was changed\n');
    const off = await run(['service', 'disable', 'ssh', '--json']);
    expect(JSON.parse(off.stdout)).toMatchObject({ changed: true, enable: false });
    const offAgain = await run(['service', 'disable', 'ssh', '--json']);
    expect(JSON.parse(offAgain.stdout)).toMatchObject({ changed: false, enable: false });
  });
});

describe('stor service with --targets, on 25.10.1 and 26.0', () => {
  it('starts nfs on both (26.0 has no service.start: control is what both offer), and a second run changes nothing', async () => {
    const env = await bothReleasesEnv();
    const refused = await runStor(['--targets', 'all', 'service', 'start', 'nfs'], { env });
    expect(refused.code).toBe(2);
    const applied = await runStor(['--targets', 'all', 'service', 'start', 'nfs', '--yes', '--json'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const outcomes = JSON.parse(applied.stdout) as { target: string; ok: boolean; data: { changed: boolean } }[];
    expect(outcomes.map((o) => [o.target, o.ok, o.data.changed])).toEqual([
      ['nas1', true, true],
      ['nas2', true, true],
    ]);
    const again = await runStor(['--targets', 'all', 'service', 'start', 'nfs', '--yes', '--json'], { env });
    expect((JSON.parse(again.stdout) as { data: { changed: boolean } }[]).map((o) => o.data.changed)).toEqual([
      false,
      false,
    ]);
    const listed = await runStor(['--targets', 'nas2', 'service', 'list', '--json'], { env });
    expect(listed.stdout).toContain('webshare');
  });
});

describe('privilege suggest --for "service …"', () => {
  it('names SERVICE_READ and SERVICE_WRITE: the one write role for any service, not a sharing role that covers only its own', async () => {
    for (const words of ['service start', 'service stop', 'service enable']) {
      const r = await runStor(['privilege', 'suggest', '--for', words, '--json'], { env: clientEnv() });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { roles: string[] }).roles).toEqual(['SERVICE_READ', 'SERVICE_WRITE']);
    }
  });
});
