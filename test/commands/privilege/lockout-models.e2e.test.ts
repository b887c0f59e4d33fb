/**
 * `stor privilege check|list|show|fix` judge what locks users out by what *this* target does
 * (issue: "Lockout diagnosis true to the target"; docs/RELEASES.md "Emulator behaviours"; MW/role.py:354-365).
 * The commands run in-process (storIn, the same `run()` the binary calls); a lockout's exit 6 and a
 * refused login's exit 4 also through the built binary.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import catalogueData from '../../../src/core/roles/roles-25.10.1.json' with { type: 'json' };
import { makeUserWithPrivilege, stor } from '../../helpers/runbook.js';
import { storIn } from '../../helpers/run-stor.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';

const OVERLAP = ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE'];
const SELF = ['PRIVILEGE_WRITE', 'POOL_READ'];

interface CheckReport {
  ok: boolean;
  model: { rule: string; name: string; basis: string; release: string | null; emulator: boolean };
  privileges: {
    name: string;
    locks_out: boolean;
    findings: { kind: string; role: string; locks_out: boolean; effect: string }[];
  }[];
}

/** In-process, and `bin`: the same environment through the built binary. */
type Run = ReturnType<typeof storIn> & { bin: ReturnType<typeof stor> };
const both = (env: Record<string, string>): Run => Object.assign(storIn(env), { bin: stor(env) });

/** Two privileges, one per kind of finding, each bound to its own group and user. */
async function twoPrivileges(run: Run): Promise<void> {
  await makeUserWithPrivilege(run, 'olga', 'overlapping', OVERLAP);
  await makeUserWithPrivilege(run, 'sam', 'selfish', ['POOL_READ']);
  await run(['privilege', 'update', 'selfish', '--roles', SELF.join(','), '--force']);
}

async function embedded(roleExpansion: 'truenas-25.10.1' | 'as-reported'): Promise<Run> {
  const home = tempDir();
  Appliance.open({ stateDir: home, settings: { roleExpansion } }).close();
  return both({ STOR_HOME: home });
}

async function served(roleExpansion: 'truenas-25.10.1' | 'as-reported'): Promise<Run> {
  const server = await spawnServe(tempDir(), ['--role-expansion', roleExpansion]);
  return both({
    STOR_HOME: tempDir(),
    STOR_CONFIG_DIR: tempDir(),
    STOR_URL: server.baseUrl,
    STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
  });
}

const targets = { embedded, 'stor serve': served };

describe.each(Object.entries(targets))('privilege check on the %s target', (_name, open) => {
  it('truenas-25.10.1: an overlap is a warning (exit 0); a self-including role is a lockout (exit 6) named as including itself', async () => {
    const run = await open('truenas-25.10.1');
    await makeUserWithPrivilege(run, 'olga', 'overlapping', OVERLAP);
    const warned = await run(['privilege', 'check', '--json'], 0);
    const report = JSON.parse(warned.stdout) as CheckReport;
    expect(report).toMatchObject({ ok: true, model: { rule: 'self-including', emulator: true, release: '25.10.1' } });
    expect(report.privileges).toEqual([
      expect.objectContaining({
        name: 'overlapping',
        locks_out: false,
        findings: [expect.objectContaining({ kind: 'overlap', role: 'FILESYSTEM_DATA_WRITE', locks_out: false })],
      }),
    ]);
    const human = await run(['privilege', 'check'], 0);
    // Piped: one data row per finding; what explains it goes to stderr.
    expect(human.stdout).toMatch(/^4\toverlapping\twarning\t\[1\] FILESYSTEM_DATA_WRITE is already included by /m);
    expect(human.stdout).not.toContain('judged as');
    expect(human.stderr).toContain('role expansion truenas-25.10.1: only a self-including role breaks login');

    await makeUserWithPrivilege(run, 'sam', 'selfish', ['POOL_READ']);
    await run(['privilege', 'update', 'selfish', '--roles', SELF.join(','), '--force']);
    const locked = await run.bin(['privilege', 'check'], 6);
    expect(locked.stdout).toMatch(/^5\tselfish\tLOCKOUT\t.*PRIVILEGE_WRITE includes itself/m);
    expect(locked.stderr).toContain('next: stor privilege fix 5 --drop-self-including');
    expect(locked.stderr).toContain(
      '1 of 5 privileges lock their users out on the emulator (truenas-25.10.1); 1 with warnings only',
    );
  });

  it('as-reported: both lists lock their users out (exit 6)', async () => {
    const run = await open('as-reported');
    await twoPrivileges(run);
    const report = JSON.parse((await run(['privilege', 'check', '--json'], 6)).stdout) as CheckReport;
    expect(report.model).toMatchObject({ rule: 'as-reported', emulator: true });
    expect(report.privileges.map((p) => [p.name, p.locks_out])).toEqual([
      ['overlapping', true],
      ['selfish', true],
    ]);
  });
});

describe('what the emulator does at login matches what check says', () => {
  it('truenas-25.10.1 logs in the overlapping privilege (5 roles) and refuses the self-including one with RecursionError', async () => {
    const home = tempDir();
    Appliance.open({ stateDir: home, settings: { roleExpansion: 'truenas-25.10.1' } }).close();
    const admin = storIn({ STOR_HOME: home });
    const olga = await makeUserWithPrivilege(admin, 'olga', 'overlapping', OVERLAP);
    const sam = await makeUserWithPrivilege(admin, 'sam', 'selfish', SELF);
    expect(
      JSON.parse((await storIn({ STOR_HOME: home, STOR_API_KEY: olga })(['whoami', '--json'])).stdout).roles,
    ).toHaveLength(5);
    const refused = await stor({ STOR_HOME: home, STOR_API_KEY: sam })(['whoami', '--json'], 4);
    expect(JSON.parse(refused.stderr).error.message).toContain('maximum recursion depth exceeded');
  });
});

/** A 25.10.1-shaped privilege entry, local_groups as full group objects
 * (MW/plugins/account_/privilege.py:59-63, 226-239). */
function privilegeEntry(id: number, name: string, roles: string[], gid: number) {
  return {
    id,
    builtin_name: null,
    name,
    local_groups: [
      {
        id: gid,
        gid,
        name,
        group: name,
        builtin: false,
        sudo_commands: [],
        sudo_commands_nopasswd: [],
        smb: false,
        userns_idmap: null,
        local: true,
        sid: null,
        roles: [],
        users: [],
        immutable: false,
      },
    ],
    ds_groups: [],
    roles,
    web_shell: false,
  };
}

/** `privilege.roles` as a release answers it; `patch` changes some roles' includes. */
function rolesAnswer(patch: Record<string, string[]> = {}) {
  return Object.entries(catalogueData as Record<string, { includes: string[]; builtin: boolean }>).map(
    ([name, role]) => ({
      name,
      title: name,
      includes: patch[name] ?? role.includes,
      builtin: role.builtin,
      stig: 1,
    }),
  );
}

async function realAppliance(release: string, patch: Record<string, string[]> = {}) {
  return startStandinAppliance({
    'auth.login_with_api_key': { result: true },
    'system.version_short': { result: release },
    'privilege.roles': { result: rolesAnswer(patch) },
    'privilege.query': {
      result: [privilegeEntry(4, 'overlapping', OVERLAP, 3000), privilegeEntry(5, 'selfish', SELF, 3001)],
    },
  });
}

const KEY = `7-${'k'.repeat(64)}`;

describe('privilege check against a real appliance (no stor.emulation): judged by its release and its own catalogue', () => {
  it('TrueNAS 25.10.1: the self-including PRIVILEGE_WRITE locks out, the overlap is a warning', async () => {
    const nas = await realAppliance('25.10.1');
    const run = storIn({ STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY });
    const report = JSON.parse((await run(['privilege', 'check', '--json'], 6)).stdout) as CheckReport;
    expect(report.model).toMatchObject({
      rule: 'self-including',
      name: 'TrueNAS 25.10.1',
      release: '25.10.1',
      emulator: false,
    });
    expect(report.privileges.map((p) => [p.name, p.locks_out])).toEqual([
      ['overlapping', false],
      ['selfish', true],
    ]);
    expect(nas.calls).toContain('stor.emulation');
    expect(nas.calls).toContain('system.version_short');
  });

  it('a release stor does not know, whose catalogue fixed PRIVILEGE_WRITE: judged by that catalogue alone, and it says so', async () => {
    const nas = await realAppliance('27.0.0', { PRIVILEGE_WRITE: ['PRIVILEGE_READ'] });
    const run = storIn({ STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY });
    const r = await run(['privilege', 'check'], 0);
    expect(r.stderr).toContain('release 27.0.0 is not one stor knows; judged by its catalogue alone');
    expect(r.stderr).toContain('no privilege locks its users out on release 27.0.0');
  });
});

describe('stor upload refused by a real appliance', () => {
  it("explains the 403 by 25.10.1's gate: filesystem.put, FULL_ADMIN (MW/apps/file_app.py:190-200)", async () => {
    const nas = await startStandinAppliance(
      {
        'auth.login_with_api_key': { result: true },
        'filesystem.stat': {
          error: {
            code: -32001,
            message: 'Method call error',
            data: {
              error: 2,
              errname: 'ENOENT',
              reason: '[ENOENT] Path /mnt/tank/a.txt not found',
              trace: null,
              extra: null,
            },
          },
        },
      },
      (req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(403, { 'content-type': 'text/plain' }).end('403: Forbidden'));
      },
    );
    const dir = tempDir();
    writeFileSync(join(dir, 'a.txt'), 'hello');
    const run = storIn({ STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY });
    const r = await run(['upload', join(dir, 'a.txt'), '/mnt/tank/a.txt'], 5);
    expect(r.stderr).toContain('403: Forbidden');
    expect(r.stderr).toContain('filesystem.put, whose only role is FULL_ADMIN');
    expect(r.stderr).not.toContain('SYS_ADMIN');
  });
});

describe('a 26.0 target is named as 26.0, not 25.10.1', () => {
  it('privilege check --json names the model after the release it judges (truenas-26.0), and a login broken by a self-including role names TrueNAS 26.0.0-RC.1', async () => {
    const home = tempDir();
    Appliance.open({ stateDir: home, settings: EMULATIONS['truenas-26.0'] }).close();
    const run = storIn({ STOR_HOME: home });
    // SYSTEM_PRODUCT_WRITE includes itself on 26 (stable/26 MW/role.py:248).
    const key = await makeUserWithPrivilege(run, 'sam', 'selfish', ['POOL_READ']);
    await run(['privilege', 'update', 'selfish', '--roles', 'SYSTEM_PRODUCT_WRITE', '--force']);
    const report = JSON.parse((await run(['privilege', 'check', '--json'], 6)).stdout) as CheckReport;
    expect(report.model).toMatchObject({ release: '26.0.0-RC.1', name: 'the emulator (truenas-26.0)' });
    expect(JSON.stringify(report.model)).not.toContain('25.10.1');
    const refused = await storIn({ STOR_HOME: home, STOR_API_KEY: key })(['whoami', '--json'], 4);
    const error = JSON.parse(refused.stderr).error as { code: string; message: string };
    expect(error.code).toBe('LOGIN_BROKEN_BY_PRIVILEGE');
    expect(error.message).toContain('breaks role expansion on TrueNAS 26.0.0-RC.1');
  });

  it('on a terminating emulation of 26.0, a self-including role is flagged as what a real 25.10 or 26.0 refuses, never as 25.10.1 alone', async () => {
    const home = tempDir();
    Appliance.open({
      stateDir: home,
      settings: { ...EMULATIONS['truenas-26.0'], roleExpansion: 'terminating' },
    }).close();
    const run = storIn({ STOR_HOME: home });
    await makeUserWithPrivilege(run, 'tess', 'selfish', ['POOL_READ']);
    await run(['privilege', 'update', 'selfish', '--roles', 'SYSTEM_PRODUCT_WRITE', '--force']);
    const shown = (await run(['privilege', 'check', '--json'])).stdout;
    expect(shown).toContain('a real 25.10 or 26.0');
    expect(shown).not.toContain('25.10.1');
  });
});
