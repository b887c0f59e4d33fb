import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnServe } from '../../helpers/serve-process.js';
import { loggedInWs, postRpc } from '../../helpers/server.js';
import { ED25519_PRIVATE, ED25519_PRIVATE_BODY, OTHER_PUBLIC } from '../../helpers/ssh-key-fixtures.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * A keychain credential's private key is a secret: `stor serve -v`'s log (src/core/server/login-log.ts
 * and its internal-error lines) never shows one, whether the create succeeds or is refused, over the
 * WebSocket or POST /api/current. The answers carry it, as 25.10.1's do to a caller with
 * KEYCHAIN_CREDENTIAL_WRITE (MW/main.py:834-845); the log is the operator's, not the caller's.
 */
describe('stor serve -v never logs a keychain private key', () => {
  it('creates, a refused create, an update and a query of key pairs leave no part of the key in the log', async () => {
    const server = await spawnServe(tempDir(), ['-v']);
    const key = readFileSync(server.adminKeyFile, 'utf8').trim();
    const ws = await loggedInWs(server.rpcUrl, key);
    const pair = (name: string, attributes: Record<string, unknown>) => [{ name, type: 'SSH_KEY_PAIR', attributes }];

    const created = await ws.result<{ id: number }>(
      'keychaincredential.create',
      pair('k', { private_key: ED25519_PRIVATE }),
    );
    const refused = await ws.call(
      'keychaincredential.create',
      pair('k2', { private_key: ED25519_PRIVATE, public_key: OTHER_PUBLIC }),
    );
    expect(refused.error?.data?.reason).toContain('Private key and public key do not match');
    await ws.result('keychaincredential.update', [created.id, { attributes: { private_key: ED25519_PRIVATE } }]);
    const listed = await ws.result<unknown[]>('keychaincredential.query');
    expect(JSON.stringify(listed)).toContain(ED25519_PRIVATE_BODY);
    const posted = await postRpc(
      server.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'keychaincredential.create',
        params: pair('k3', { private_key: ED25519_PRIVATE }),
      },
      { key },
    );
    expect(posted.status).toBe(200);

    ws.close();
    await server.stop();
    const log = server.stderr();
    // The log is on (the logins are in it), and holds nothing of the key.
    expect(log).toMatch(/login ok: auth\.login_with_api_key/);
    for (const line of ED25519_PRIVATE.split('\n').filter((l) => l.length > 0 && !l.startsWith('-----')))
      expect(log).not.toContain(line.slice(0, 24));
  });
});
