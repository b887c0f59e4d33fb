import { describe, expect, it } from 'vitest';
import { remoteEnv } from '../../helpers/client-env.js';
import { stor } from '../../helpers/runbook.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { loggedInWs } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { readFileSync } from 'node:fs';

/*
 * `stor dataset list` with 828 datasets once exited 3, its one answer over the server's
 * 8 MiB unread-output cap (every entry carries its descendants). 30 groups of 40 nested datasets
 * make an unselected answer of well over 8 MiB; the CLI asks for them selected instead (paging by
 * offset: test/core/contract/query-pages.test.ts).
 */
const GROUPS = 30;
const PER_GROUP = 40;
const DEFAULT_CAP = 8 * 1024 * 1024;

describe('stor dataset list with more datasets than one answer should carry', () => {
  it('1,230 nested datasets through stor serve: exit 0, every dataset listed once, in order', async () => {
    const server = await spawnServe(tempDir());
    const client = await loggedInWs(server.rpcUrl, readFileSync(server.adminKeyFile, 'utf8').trim());
    const names: string[] = [];
    for (let g = 0; g < GROUPS; g++) {
      const group = `tank/g${String(g).padStart(2, '0')}`;
      names.push(group);
      for (let d = 0; d < PER_GROUP; d++) names.push(`${group}/d${String(d).padStart(2, '0')}`);
    }
    // Parents first, then ten creates in flight at a time.
    for (let i = 0; i < names.length; i += 10) {
      const batch = names.slice(i, i + 10);
      const groups = batch.filter((n) => n.split('/').length === 2);
      for (const n of groups) expect((await client.call('pool.dataset.create', [{ name: n }])).error).toBeUndefined();
      const replies = await Promise.all(
        batch.filter((n) => !groups.includes(n)).map((n) => client.call('pool.dataset.create', [{ name: n }])),
      );
      for (const r of replies) expect(r.error).toBeUndefined();
    }
    // The scene is the issue's: one unselected answer is past the default cap.
    const whole = await client.call('pool.dataset.query', []);
    expect(JSON.stringify(whole.result).length).toBeGreaterThan(DEFAULT_CAP);

    const run = stor(remoteEnv(server));
    const listed = JSON.parse((await run(['dataset', 'list', '--json'])).stdout) as { id: string }[];
    expect(listed.map((d) => d.id)).toEqual(['tank', ...names].sort());
    const table = (await run(['dataset', 'list', 'tank'])).stdout;
    expect(table).toContain('tank/g29/d39');
    // 1,230 creates and two listings: generous for a loaded machine (13 s on a quiet one).
  }, 240_000);
});
