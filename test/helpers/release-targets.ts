import { readFileSync } from 'node:fs';
import { ProfileStore } from '../../src/core/config/profiles.js';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { clientEnv } from './client-env.js';
import { stor } from './runbook.js';
import { spawnServe } from './serve-process.js';
import { startTestServer } from './server.js';
import { sessionEnv } from './session.js';
import { tempDir } from './temp-dir.js';

/**
 * A client environment whose profiles `nas1` and `nas2` are `stor serve` stand-ins of 25.10.1 and
 * 26.0 on port 0, for `--targets all` over both releases.
 */
export async function bothReleasesEnv(): Promise<Record<string, string>> {
  const servers = [
    await startTestServer(EMULATIONS['truenas-25.10.1']),
    await startTestServer(EMULATIONS['truenas-26.0']),
  ];
  const env = clientEnv();
  const store = new ProfileStore(env.STOR_CONFIG_DIR!);
  for (const [i, s] of servers.entries())
    // 26.0 logs keys in with SCRAM, which names the key's user (docs/REMOTE.md "SCRAM login (TrueNAS 26)").
    await store.save(
      `nas${i + 1}`,
      { url: `ws://127.0.0.1:${s.port}`, apiKey: s.adminKey, username: 'truenas_admin' },
      false,
    );
  return env;
}

/** The built binary against a spawned `stor serve --emulate <emulate>` on port 0, as its administrator. */
export async function storAgainstServe(emulate: string) {
  const server = await spawnServe(tempDir(), ['--emulate', emulate]);
  // 26.0 logs keys in with SCRAM, which names the key's user and counts against auth.login_ex's
  // rate limit: through the session agent, one login for a whole walk.
  return stor({
    STOR_HOME: tempDir(),
    STOR_URL: server.baseUrl,
    STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    STOR_USER: 'truenas_admin',
    ...sessionEnv().env,
  });
}
