/**
 * `stor apply --keys-out` writes its file only when the run made a key. Each test failed before its
 * fix. The built binary against real `stor serve` processes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stor } from '../../helpers/runbook.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { serveStoppedAfterAll, envOf, file } from '../../helpers/served.js';

const serve = serveStoppedAfterAll();

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
    expect(JSON.parse(readFileSync(keysOut, 'utf8'))).toEqual([
      expect.objectContaining({ name: 'ci', key: expect.stringMatching(/^\d+-\w{64}$/) }),
    ]);
  });
});

describe('stor apply --keys-out: a run that makes no key leaves no file behind', () => {
  it("every key create failing (exit 1) writes no file of `[]` that would refuse the next run's --keys-out", async () => {
    const server = await serve();
    const run = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', 'stor_state: 1\napi_keys:\n  - { name: ci, user: nobody_here }\n');
    const keysOut = join(dir, 'keys.json');
    const failed = JSON.parse(
      (await run(['apply', '-f', state, '--keys-out', keysOut, '--yes', '--json'], 1)).stdout,
    ) as { results: { status: string }[]; keys: unknown[] };
    expect(failed.results.map((r) => r.status)).toEqual(['failed']);
    expect(failed.keys).toEqual([]);
    expect(existsSync(keysOut)).toBe(false);
  });
});
