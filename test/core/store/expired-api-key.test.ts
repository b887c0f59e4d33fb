import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/core/store/sqlite.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';

/**
 * A key past its expiry: 25.10.1 keeps `revoked` false and shows `expires_at` in the past
 * (MW/plugins/api_key.py:121-131, TS-25.10.1), and refuses the login with it. Every place stor
 * shows the key says it expired; a login with it says which key to look up.
 */
describe('an expired API key', () => {
  async function expiredKey() {
    const env = clientEnv();
    const made = await runStor(['api-key', 'create', 'old', '--user', 'truenas_admin', '--expires', '2030-01-01'], {
      env,
    });
    expect(made.code, made.stderr).toBe(0);
    // As if that day had come: the expiry moved a day into the past, as the database keeps it.
    const db = openDatabase(join(env.STOR_HOME!, 'stor.db'));
    try {
      db.prepare("UPDATE api_keys SET expires_at = ? WHERE name = 'old'").run(Date.now() - 86_400_000);
    } finally {
      db.close();
    }
    return { env, key: made.stdout.trim() };
  }

  it('api-key list: `expired` in --json (revoked stays false, as the appliance says), "(expired)" on a terminal', async () => {
    const { env } = await expiredKey();
    const json = JSON.parse((await runStor(['api-key', 'list', '--json'], { env })).stdout) as {
      name: string;
      expired: boolean;
      revoked: boolean;
    }[];
    expect(json.find((k) => k.name === 'old')).toMatchObject({ expired: true, revoked: false });
    const table = await runStor(['api-key', 'list'], { env, tty: true, color: 0 });
    expect(table.stdout).toMatch(/old .* \(expired\) +no\n/);
  });

  it('whoami with it: KEY_REJECTED, the hint naming the key by id and where its state shows, never its secret', async () => {
    const { env, key } = await expiredKey();
    const [id, secret] = key.split('-');
    const r = await runStor(['whoami', '--json'], { env: { ...env, STOR_API_KEY: key } });
    expect(r.code).toBe(4);
    const error = JSON.parse(r.stderr).error;
    expect(error.code).toBe('KEY_REJECTED');
    expect(error.hint).toContain(`key ${id} `);
    expect(error.hint).toContain('`stor api-key list`');
    expect(r.stderr).not.toContain(secret);
  });
});
