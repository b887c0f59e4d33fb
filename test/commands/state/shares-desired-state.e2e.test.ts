/**
 * NFS and SMB shares in desired state, end to end (docs/STATE.md "Shares"):
 * applied after the datasets that hold them to a fresh embedded target, drift made by hand shown
 * and undone, the export reproduced on another target (`stor serve --emulate truenas-26.0`), a
 * second apply changing nothing, and `--prune` deleting a share stor made but never one made by hand.
 * The commands run in-process (commandsUnderTest, the same `run()` the binary calls) unless
 * STOR_BIN_UNDER_TEST names another build.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnServe } from '../../helpers/serve-process.js';
import { commandsUnderTest, embeddedCommandsUnderTest as appliance } from '../../helpers/stor-under-test.js';
import { tempDir } from '../../helpers/temp-dir.js';

const file = (text: string): string => {
  const path = join(tempDir('stor-shares-file-'), 'state.yaml');
  writeFileSync(path, text);
  return path;
};

interface Applied {
  results: { kind: string; name: string; action: string; status: string }[];
}

const STATE = [
  'stor_state: 1',
  'datasets:',
  '  - { name: tank/web }',
  '  - { name: tank/media }',
  'shares:',
  '  nfs:',
  '    - { path: /mnt/tank/web, networks: [10.1.2.3/8], ro: true, comment: web export }',
  '    - { path: /mnt/tank/media, security: [SYS], maproot_user: root }',
  '  smb:',
  '    - { name: Media, path: /mnt/tank/media, purpose: MULTIPROTOCOL_SHARE, readonly: true }',
  '',
].join('\n');

describe('shares in desired state (the built binary)', () => {
  it('applies datasets then shares, shows a hand-made change as drift and undoes it, and reproduces the export on a 26.0 target', async () => {
    const run = appliance();
    const state = file(STATE);
    const first = JSON.parse((await run(['apply', '-f', state, '--yes', '--json'])).stdout) as Applied;
    expect(first.results.map((r) => `${r.status} ${r.action} ${r.kind} ${r.name}`)).toEqual([
      'done create datasets tank/web',
      'done create datasets tank/media',
      'done create shares.nfs /mnt/tank/web',
      'done create shares.nfs /mnt/tank/media',
      'done create shares.smb Media',
    ]);
    await run(['plan', '-f', state], 0);

    // A share's networks changed by hand: drift (exit 7), shown as the appliance stores them.
    const [web] = JSON.parse((await run(['call', 'sharing.nfs.query', '[["path", "=", "/mnt/tank/web"]]'])).stdout) as {
      id: number;
    }[];
    await run(['call', 'sharing.nfs.update', String(web!.id), '{"networks": ["192.168.0.0/16"]}']);
    const drift = await run(['plan', '-f', state], 7);
    expect(drift.stdout).toContain('nfs share /mnt/tank/web');
    expect(drift.stdout).toContain('networks: 192.168.0.0/16 → 10.0.0.0/8');
    await run(['apply', '-f', state, '--yes']);
    await run(['plan', '-f', state], 0);

    // The export, applied to a fresh 26.0 target: the same shares, a plan with no change, and a
    // second apply that changes nothing.
    const exported = (await run(['export'])).stdout;
    expect(exported).toContain('shares:');
    const server = await spawnServe(tempDir('stor-shares-26-'), ['--emulate', 'truenas-26.0']);
    const env = {
      STOR_HOME: tempDir('stor-shares-home-'),
      STOR_CONFIG_DIR: tempDir('stor-shares-config-'),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
      // 26's SCRAM key login names the key's user (docs/ENVIRONMENT.md STOR_USER): the admin key is truenas_admin's.
      STOR_USER: 'truenas_admin',
    };
    const other = commandsUnderTest(env);
    // The embedded target's own key and built-in accounts are left out: only the datasets and shares.
    const copy = file((await run(['export', '--only', 'datasets,shares'])).stdout);
    const made = JSON.parse((await other(['apply', '-f', copy, '--yes', '--json'])).stdout) as Applied;
    expect(made.results.filter((r) => r.kind.startsWith('shares.')).map((r) => `${r.status} ${r.name}`)).toEqual([
      'done /mnt/tank/web',
      'done /mnt/tank/media',
      'done Media',
    ]);
    await other(['plan', '-f', copy], 0);
    await other(['plan', '-f', state], 0);
    const again = JSON.parse((await other(['apply', '-f', copy, '--yes', '--json'])).stdout) as Applied;
    expect(again.results).toEqual([]);
    const nfs = JSON.parse((await other(['call', 'sharing.nfs.query'])).stdout) as Record<string, unknown>[];
    expect(nfs.map((s) => [s.path, s.networks, s.ro, s.comment, s.security, s.maproot_user])).toEqual([
      ['/mnt/tank/web', ['10.0.0.0/8'], true, 'web export', [], null],
      ['/mnt/tank/media', [], false, '', ['SYS'], 'root'],
    ]);
    const smb = JSON.parse((await other(['call', 'sharing.smb.query'])).stdout) as Record<string, unknown>[];
    expect(smb.map((s) => [s.name, s.path, s.purpose, s.readonly])).toEqual([
      ['Media', '/mnt/tank/media', 'MULTIPROTOCOL_SHARE', true],
    ]);
    await server.stop();
  });

  it('--prune deletes a share stor made that the file no longer names, and keeps one made by hand', async () => {
    const run = appliance();
    await run(['apply', '-f', file(STATE), '--yes']);
    // Made by hand: no mark.
    await run(['dataset', 'create', 'tank/hand']);
    await run(['call', 'sharing.nfs.create', '{"path": "/mnt/tank/hand"}']);
    await run(['call', 'sharing.smb.create', '{"name": "hand", "path": "/mnt/tank/web"}']);
    const fewer = file(
      [
        'stor_state: 1',
        'datasets:',
        '  - { name: tank/web }',
        '  - { name: tank/media }',
        'shares:',
        '  smb:',
        // Named in another case: the same share, kept.
        '    - { name: media, path: /mnt/tank/media }',
        '',
      ].join('\n'),
    );
    // The file names no NFS share: stor's two are deleted, the one made by hand stays.
    const pruned = JSON.parse((await run(['apply', '-f', fewer, '--prune', '--yes', '--json'])).stdout) as Applied;
    expect(pruned.results.map((r) => `${r.status} ${r.action} ${r.kind} ${r.name}`)).toEqual([
      'done delete shares.nfs /mnt/tank/web',
      'done delete shares.nfs /mnt/tank/media',
    ]);
    const nfs = JSON.parse((await run(['call', 'sharing.nfs.query'])).stdout) as { path: string }[];
    expect(nfs.map((s) => s.path)).toEqual(['/mnt/tank/hand']);
    const smb = JSON.parse((await run(['call', 'sharing.smb.query'])).stdout) as { name: string }[];
    expect(smb.map((s) => s.name)).toEqual(['Media', 'hand']);
    await run(['plan', '-f', fewer, '--prune'], 0);
  });
});
