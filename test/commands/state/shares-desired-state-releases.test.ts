/**
 * Shares in desired state on stand-ins of both releases, in-process (docs/STATE.md "Shares"): a
 * file applied to one release, applied again changing nothing, a share's networks changed by hand
 * with `stor share update` shown by `stor plan` as drift (exit 7) and undone by `stor apply` (then
 * exit 0), and its export applied to the other release reproducing the shares.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

type Release = 'truenas-25.10.1' | 'truenas-26.0';

/** `stor` against a fresh stand-in of `release`; each run must exit `code`. */
async function standIn(release: Release) {
  // Keys log in plainly: 26.0's SCRAM takes two of the 20 logins a minute.
  const server = await startTestServer({ ...EMULATIONS[release], keyLogin: 'plain' });
  const env = { ...clientEnv(), STOR_URL: `ws://127.0.0.1:${server.port}`, STOR_API_KEY: server.adminKey };
  return async (args: string[], code = 0) => {
    const r = await runStor(args, { env });
    expect(r.code, `stor ${args.join(' ')}\n${r.stderr}`).toBe(code);
    return r;
  };
}

const file = (text: string): string => {
  const path = join(tempDir('stor-shares-file-'), 'state.yaml');
  writeFileSync(path, text);
  return path;
};

const STATE_TEXT = [
  'stor_state: 1',
  'datasets:',
  '  - { name: tank/web }',
  'shares:',
  '  nfs:',
  '    - { path: /mnt/tank/web, networks: [10.1.2.3/8], ro: true }',
  '  smb:',
  '    - { name: Web, path: /mnt/tank/web, purpose: MULTIPROTOCOL_SHARE, comment: site }',
  '',
].join('\n');

interface Applied {
  results: { kind: string; name: string; action: string }[];
}
const applied = async (run: Awaited<ReturnType<typeof standIn>>, path: string) =>
  (JSON.parse((await run(['apply', '-f', path, '--yes', '--json'])).stdout) as Applied).results.map(
    (r) => `${r.action} ${r.kind} ${r.name}`,
  );
const shares = async (run: Awaited<ReturnType<typeof standIn>>) =>
  (JSON.parse((await run(['share', 'list', '--json'])).stdout) as Record<string, unknown>[]).map((s) =>
    s.kind === 'nfs' ? [s.kind, s.path, s.networks, s.ro] : [s.kind, s.name, s.path, s.purpose, s.comment],
  );

describe.each([
  ['truenas-25.10.1', 'truenas-26.0'],
  ['truenas-26.0', 'truenas-25.10.1'],
] as const)('shares in desired state from %s to %s', (from, to) => {
  it('applies once, then changes nothing; a hand-made change of networks is drift until applied; the export reproduces the shares on the other release', async () => {
    const STATE = file(STATE_TEXT);
    const run = await standIn(from);
    expect(await applied(run, STATE)).toEqual([
      'create datasets tank/web',
      'create shares.nfs /mnt/tank/web',
      'create shares.smb Web',
    ]);
    expect(await applied(run, STATE)).toEqual([]);
    await run(['share', 'update', '/mnt/tank/web', '--networks', '192.168.0.0/16']);
    const drift = await run(['plan', '-f', STATE], 7);
    expect(drift.stdout).toContain('networks: 192.168.0.0/16 → 10.0.0.0/8');
    expect(await applied(run, STATE)).toEqual(['update shares.nfs /mnt/tank/web']);
    await run(['plan', '-f', STATE], 0);
    const made = await shares(run);

    const copy = file((await run(['export', '--only', 'datasets,shares'])).stdout);
    const other = await standIn(to);
    expect(await applied(other, copy)).toEqual([
      'create datasets tank/web',
      'create shares.nfs /mnt/tank/web',
      'create shares.smb Web',
    ]);
    expect(await applied(other, copy)).toEqual([]);
    await other(['plan', '-f', STATE], 0);
    expect(await shares(other)).toEqual(made);
  });
});
