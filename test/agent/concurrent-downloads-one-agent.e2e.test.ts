import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { agentServing, SAFETY_KILL_MS, sessionEnv, viaAgent } from '../helpers/session.js';
import { tempDir } from '../helpers/temp-dir.js';

/*
 * The agent runs several commands at once in one process, so one pid for all of them. `download -r`
 * named each file's temporary file `.stor-download-<pid>-<index>`: two commands of one agent
 * downloading into one directory at once (a runbook's `download -r … ./out &` twice) took the same
 * name, and the second failed (created exclusively: EEXIST), where their own processes, of two
 * pids, would both have succeeded. What the other command holds at that moment is stood in for by
 * a file under that name, made before the second command runs. `npm run build` first.
 */

describe("two commands of one agent downloading into one directory do not take each other's temporary files", () => {
  it("download -r through the agent succeeds while a file of the agent's pid-and-index name is in the directory, as in its own process", async () => {
    const { env: session, dir } = sessionEnv();
    const env = { ...clientEnv(), ...session };
    expect((await spawnStor(['whoami'], { env, killAfterMs: SAFETY_KILL_MS })).code).toBe(0);
    const { pid } = await agentServing(dir);
    mkdirSync(join(env.STOR_HOME!, 'mnt/tank/tree'), { recursive: true });
    writeFileSync(join(env.STOR_HOME!, 'mnt/tank/tree/a.txt'), 'a\n');
    const out = tempDir('stor-concurrent-out-');
    // The other command's file in flight, under the name this agent's pid gives index 0.
    writeFileSync(join(out, `.stor-download-${pid}-0`), "the other command's bytes");
    const r = await viaAgent(['download', '-r', '/mnt/tank/tree', out], env, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(out, 'a.txt'), 'utf8')).toBe('a\n');
    // The other command's file is untouched.
    expect(readFileSync(join(out, `.stor-download-${pid}-0`), 'utf8')).toBe("the other command's bytes");
    expect(readdirSync(out).sort()).toEqual([`.stor-download-${pid}-0`, 'a.txt']);
  });
});
