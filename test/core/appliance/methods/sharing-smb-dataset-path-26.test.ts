/**
 * 26.0's SMB share entries carry `dataset` and `relative_path` as `resolve_dataset_path` finds them
 * (stable/26 MW/plugins/smb.py:1308 → MW/service/sharing_service.py:150-185 → MW/utils/mount.py:20-115):
 * the path normalized first (`os.path.normpath`), then opened with RESOLVE_NO_SYMLINKS, so a path
 * through a symbolic link resolves to neither.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer } from '../../../helpers/server.js';

async function session() {
  const server = await startTestServer({ ...EMULATIONS['truenas-26.0'], keyLogin: 'plain' as const });
  const ws = await loggedInWs(server.rpcUrl, server.adminKey);
  expect((await ws.call('pool.dataset.create', [{ name: 'tank/docs' }])).error).toBeUndefined();
  const create = async (name: string, path: string) => {
    const reply = await ws.call('sharing.smb.create', [{ name, path }]);
    expect(reply.error, path).toBeUndefined();
    const { dataset, relative_path } = reply.result as { dataset: unknown; relative_path: unknown };
    return { dataset, relative_path };
  };
  return { server, create };
}

describe('26.0 sharing.smb dataset and relative_path (MW/utils/mount.py:20-115 at stable/26)', () => {
  it('normalizes the path first: //, a trailing / and a dot name the dataset they lead to', async () => {
    const { server, create } = await session();
    mkdirSync(join(server.stateDir, 'mnt', 'tank', 'docs', 'sub'));
    expect(await create('a', '/mnt/tank//docs')).toEqual({ dataset: 'tank/docs', relative_path: '' });
    expect(await create('b', '/mnt/tank/docs/./sub/')).toEqual({ dataset: 'tank/docs', relative_path: 'sub' });
  });

  it('resolves a path through a symbolic link to neither', async () => {
    const { server, create } = await session();
    mkdirSync(join(server.stateDir, 'mnt', 'tank', 'docs', 'sub'));
    symlinkSync(join(server.stateDir, 'mnt', 'tank', 'docs'), join(server.stateDir, 'mnt', 'tank', 'link'));
    expect(await create('c', '/mnt/tank/link/sub')).toEqual({ dataset: null, relative_path: null });
  });
});
