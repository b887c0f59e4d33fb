import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/core/config/profiles.js';
import { E } from '../../../src/core/error-catalogue.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';

const targetOf = async (env: Record<string, string>, ...globals: string[]) => {
  const r = await runStor([...globals, 'whoami', '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).target as { kind: string };
};

describe('the embedded appliance is selectable by name after a login', () => {
  it('profile list shows it; profile use embedded, --profile embedded and STOR_PROFILE=embedded go back to it', async () => {
    const server = await startTestServer();
    const env = clientEnv();
    const login = await runStor(['login', '--url', server.url, '--api-key-stdin', '--json'], {
      env,
      stdin: server.adminKey,
    });
    expect(login.code, login.stderr).toBe(0);
    const name = JSON.parse(login.stdout).profile as string;
    expect((await targetOf(env)).kind).toBe('remote');

    const list = JSON.parse((await runStor(['profile', 'list', '--json'], { env })).stdout) as {
      name: string;
      kind: string;
      current: boolean;
      url: string | null;
    }[];
    expect(list.map((p) => [p.name, p.kind, p.current])).toEqual([
      ['embedded', 'embedded', false],
      [name, 'remote', true],
    ]);
    expect(list[0]!.url).toBeNull();

    expect((await targetOf(env, '--profile', 'embedded')).kind).toBe('embedded');
    expect((await targetOf({ ...env, STOR_PROFILE: 'embedded' })).kind).toBe('embedded');

    const use = await runStor(['profile', 'use', 'embedded', '--json'], { env });
    expect(use.code, use.stderr).toBe(0);
    expect(JSON.parse(use.stdout)).toEqual({ profile: 'embedded', current: true });
    expect((await targetOf(env)).kind).toBe('embedded');
    const piped = (await runStor(['profile', 'list'], { env })).stdout.split('\n');
    expect(piped[0]).toMatch(/^\*\tembedded\t\(embedded\) /);
    expect(piped[1]).toMatch(new RegExp(`^\\t${name}\\tws://`));
    // The saved profile is still there, to go back to.
    expect((await runStor(['profile', 'use', name], { env })).code).toBe(0);
    expect((await targetOf(env)).kind).toBe('remote');
    await server.close();
  });

  it('the name is reserved: login and import refuse it; a profile saved as "embedded" before is refused by name, not guessed', async () => {
    const env = clientEnv();
    const login = await runStor(
      ['login', '--url', 'ws://127.0.0.1:9', '--profile', 'embedded', '--api-key-stdin', '--json'],
      { env, stdin: `1-${'a'.repeat(64)}` },
    );
    expect(login.code).toBe(2);
    expect(JSON.parse(login.stderr).error).toMatchObject({
      code: E.PROFILE_EXISTS.code,
      message: 'the profile name "embedded" is reserved: it names the embedded appliance',
    });

    // As an older stor could have saved it.
    await new ProfileStore(env.STOR_CONFIG_DIR!).save(
      'embedded',
      { url: 'ws://127.0.0.1:9', apiKey: `1-${'b'.repeat(64)}` },
      true,
    );
    for (const args of [['whoami'], ['--profile', 'embedded', 'whoami'], ['profile', 'use', 'embedded']]) {
      const r = await runStor([...args, '--json'], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(JSON.parse(r.stderr).error).toMatchObject({ code: E.AMBIGUOUS_NAME.code });
      expect(JSON.parse(r.stderr).error.hint).toContain('--url ws://127.0.0.1:9');
    }
  });
});
