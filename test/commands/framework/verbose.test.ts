import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

const traces = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('stor: trace: '));

describe('-v on the embedded appliance', () => {
  it('traces the target, the transport and each call with its duration on stderr, never the key', async () => {
    const home = tempDir();
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir() };
    const quiet = await runStor(['whoami', '--json'], { env });
    expect(quiet.code).toBe(0);
    expect(traces(quiet.stderr)).toEqual([]);
    const adminKey = readFileSync(join(home, 'admin.key'), 'utf8').trim();

    const r = await runStor(['-v', 'whoami', '--json'], { env: { ...env, STOR_API_KEY: adminKey } });
    expect(r.code, r.stderr).toBe(0);
    // stdout is the same document: traces never mix into it.
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(quiet.stdout));
    const lines = traces(r.stderr);
    expect(lines[0]).toBe(`stor: trace: target: the embedded appliance, state ${home}`);
    expect(lines[1]).toBe('stor: trace: transport: embedded (in this process), key from STOR_API_KEY');
    expect(lines).toContainEqual(expect.stringMatching(/^stor: trace: call auth\.login_with_api_key: \d+\.\d ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^stor: trace: call auth\.me: \d+\.\d ms$/));
    expect(r.stderr).not.toContain(adminKey);
    expect(r.stderr).not.toContain(adminKey.split('-')[1]);
  });

  it('names a failed call by its error code, without its params', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const r = await runStor(['-v', 'call', 'user.update', '12345', '{"password":"hunter2-secret"}'], { env });
    expect(r.code).not.toBe(0);
    expect(traces(r.stderr)).toContainEqual(
      expect.stringMatching(/^stor: trace: call user\.update: failed after \d+\.\d ms \(\w+\)$/),
    );
    expect(traces(r.stderr).join('\n')).not.toContain('hunter2-secret');
  });
});
