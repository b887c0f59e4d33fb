/**
 * The official client's own SCRAM code (truenas_api_client/scram_impl.py `TNScramClient`, and its
 * pure-Python truenas_pyscram fallback py_scram/, truenas/api_client branch stable/26) logging in
 * to `stor serve --key-login scram` over wss://, channel-bound to the served certificate as
 * truenas_api_client/auth_api_key.py:360-420 does it. Python runs the client; this test relays its
 * JSON-RPC params over a raw WebSocket (the client's websocket transport is not needed for SCRAM).
 *
 * Needs STOR_TEST_API_CLIENT_26: a directory holding `truenas_api_client/` at a 26 tag or
 * stable/26 (with scram_impl.py); without it, or without python3, the test is skipped, saying why.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { onTestFinished, describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { startServer } from '../../../src/core/server/server.js';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { selfSignedCert } from '../../helpers/self-signed.js';
import { connectWs } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** The package is loaded without its __init__ (which needs websocket-client): only scram_impl and py_scram. */
const CLIENT = `
import base64, json, sys, types
pkg = types.ModuleType('truenas_api_client'); pkg.__path__ = [sys.argv[1] + '/truenas_api_client']
sys.modules['truenas_api_client'] = pkg
from truenas_api_client.scram_impl import TNScramClient, CB_TLS_SERVER_END_POINT, compute_tls_server_end_point
username, raw = sys.argv[2], sys.argv[3]
key_id, material = raw.split('-', 1)
cert = base64.b64decode(sys.argv[4])
binding = compute_tls_server_end_point(cert)
sc = TNScramClient(raw_key_material=material, api_key_id=int(key_id))
def ask(msg):
    print(json.dumps({'mechanism': 'SCRAM'} | msg), flush=True)
    return json.loads(sys.stdin.readline())
resp = ask(sc.get_client_first_message(username, channel_binding_type=CB_TLS_SERVER_END_POINT))
assert resp.pop('response_type') == 'SCRAM_RESPONSE', resp
resp = ask(sc.get_client_final_message(server_resp_dict=resp, channel_binding=binding))
assert resp.pop('response_type') == 'SCRAM_RESPONSE', resp
print(json.dumps({'verified': bool(sc.verify_server_final_message(server_resp_dict=resp))}), flush=True)
`;

function officialClient(): { dir: string } | { reason: string } {
  const dir = process.env.STOR_TEST_API_CLIENT_26;
  if (!dir)
    return {
      reason:
        'STOR_TEST_API_CLIENT_26 is not set (a directory with truenas_api_client/ of truenas/api_client at stable/26)',
    };
  if (!existsSync(join(dir, 'truenas_api_client', 'scram_impl.py')))
    return { reason: `${dir}/truenas_api_client/scram_impl.py does not exist (a release before 26)` };
  const r = spawnSync('python3', ['--version']);
  if (r.error) return { reason: `python3 cannot be run: ${r.error.message}` };
  return { dir };
}

describe("the official client's SCRAM against stor serve --key-login scram", () => {
  const client = officialClient();
  it('TNScramClient logs in channel-bound over wss:// and verifies the server signature (auth_api_key.py:360-420)', async (ctx) => {
    if ('reason' in client) return ctx.skip(client.reason);
    const t = await openTestAppliance({ ...EMULATIONS['truenas-25.10.1'], keyLogin: 'scram' });
    const pem = selfSignedCert(tempDir());
    const running = await startServer({
      appliance: t.appliance,
      host: '127.0.0.1',
      port: 0,
      tls: { cert: readFileSync(pem.cert), key: readFileSync(pem.key) },
    });
    onTestFinished(() => running.close(100));
    const { key } = await createUserWithKey(t, 'ivy', { privilegeRoles: ['READONLY_ADMIN'] });
    const ws = await connectWs(running.rpcUrl, { rejectUnauthorized: false });
    const der = new (await import('node:crypto')).X509Certificate(readFileSync(pem.cert)).raw.toString('base64');
    const py = spawn('python3', ['-c', CLIENT, client.dir, 'ivy', key, der], { stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => void py.kill());
    let stderr = '';
    py.stderr.on('data', (d) => (stderr += d));
    let outcome: unknown;
    for await (const line of createInterface({ input: py.stdout })) {
      const msg = JSON.parse(line) as Record<string, unknown>;
      if ('verified' in msg) {
        outcome = msg;
        break;
      }
      const reply = await ws.call('auth.login_ex', [msg]);
      py.stdin.write(`${JSON.stringify(reply.result ?? reply.error)}\n`);
    }
    expect(outcome, stderr).toEqual({ verified: true });
    expect(((await ws.call('auth.me')).result as { pw_name: string }).pw_name).toBe('ivy');
  });
});
