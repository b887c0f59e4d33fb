/**
 * `core.set_options({"py_exceptions": true})` through the official client: 25.10.1 then adds
 * `data.py_exception`, the pickled exception, to every error raised while a method ran
 * (MW/api/base/server/ws_handler/rpc.py:85-98), and truenas_api_client raises that exception in
 * place of its ClientException (truenas_api_client/__init__.py:586-611, 851-855), so a caller
 * catches `middlewared.service_exception.ValidationErrors`, `InstanceNotFound` or `CallError`.
 *
 * The client unpickles with a plain `pickle.loads`: the classes must be importable where it runs,
 * as on the appliance. The test gives it a stand-in module with 25.10.1's classes, names and
 * constructor signatures (middlewared-stand-in/ beside this file), and asserts what the pickle
 * carries (class, attributes), not the module's own wording. Needs STOR_TEST_API_CLIENT (docs/NODE.md "SQLite, CI and other
 * majors"); without it the test is skipped, saying why.
 */
import { spawn } from 'node:child_process';
import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { SAFETY_MS, startTestServer } from '../helpers/server.js';
import { findClient } from '../conformance/official-client.js';

const RUNNER = fileURLToPath(new URL('../conformance/official-client-py-exceptions.py', import.meta.url));
const MIDDLEWARED = fileURLToPath(new URL('../conformance/middlewared-stand-in', import.meta.url));
const client = findClient();

interface Call {
  label: string;
  method: string;
  params: unknown[];
  py_exceptions?: boolean;
}

type Outcome = { label: string; raised: Record<string, any> | null; result?: unknown };

function runCalls(env: NodeJS.ProcessEnv, url: string, key: string, calls: Call[]): Promise<Map<string, Outcome>> {
  return new Promise((resolve, reject) => {
    const pythonPath = [env.PYTHONPATH, MIDDLEWARED].filter(Boolean).join(delimiter);
    const py = spawn('python3', [RUNNER], {
      env: { ...env, PYTHONPATH: pythonPath },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: SAFETY_MS,
    });
    let out = '';
    let err = '';
    py.stdout.on('data', (d: Buffer) => (out += d.toString()));
    py.stderr.on('data', (d: Buffer) => (err += d.toString()));
    py.on('error', reject);
    py.on('close', (code) => {
      if (code !== 0) return reject(new Error(`runner exited ${code}:\n${err}`));
      resolve(
        new Map(
          out
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Outcome)
            .map((o) => [o.label, o]),
        ),
      );
    });
    py.stdin.end(JSON.stringify({ url, key, calls }));
  });
}

const SE = 'middlewared.service_exception';

describe("py_exceptions: the official client raises the appliance's own exceptions (MW/api/base/server/ws_handler/rpc.py:94-98)", () => {
  it("ValidationErrors, InstanceNotFound, CallError and Python's own exceptions come back as 25.10.1 pickles them; without the option, ClientException", async (ctx) => {
    if ('reason' in client) return ctx.skip(client.reason);
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const outcomes = await runCalls(client.env, server.rpcUrl, server.adminKey, [
      // A refused api_key.create: the model's ValidationErrors (MW/api/base/handler/accept.py:49).
      { label: 'bad params', method: 'api_key.create', params: [{ username: 'truenas_admin' }] },
      // CRUDService.get_instance of a missing id (MW/service/crud_service.py:242).
      { label: 'missing user', method: 'user.get_instance', params: [99999] },
      { label: 'missing snapshot', method: 'pool.snapshot.delete', params: ['tank@nope'] },
      { label: 'call error', method: 'filesystem.listdir', params: ['/mnt/tank/nope'] },
      // os.mkdir's FileNotFoundError, unhandled (MW/api/base/server/ws_handler/rpc.py:378-391).
      { label: 'os error', method: 'filesystem.mkdir', params: [{ path: '/mnt/tank/nope/deeper' }] },
      // entry['password_history'] of a list (MW/plugins/account.py:1799-1843).
      { label: 'type error', method: 'user.set_password', params: [{ username: 'nope', new_password: 'x' }] },
      { label: 'no option', method: 'user.get_instance', params: [99999], py_exceptions: false },
    ]);
    const raised = (label: string) => outcomes.get(label)?.raised;

    expect(raised('bad params')).toMatchObject({
      class: `${SE}.ValidationErrors`,
      errors: [[`${SE}.ValidationError`, 'api_key_create.name', 'Field required', 22]],
    });
    expect(raised('missing user')).toMatchObject({
      class: `${SE}.InstanceNotFound`,
      errno: 2,
      attribute: null,
      errmsg: 'User 99999 does not exist',
      is_validation_error: true,
    });
    expect(raised('missing snapshot')).toMatchObject({
      class: `${SE}.InstanceNotFound`,
      errmsg: 'Snapshot tank@nope not found',
    });
    expect(raised('call error')).toMatchObject({
      class: `${SE}.CallError`,
      errno: 2,
      errmsg: 'Directory /mnt/tank/nope does not exist',
      extra: null,
    });
    expect(raised('os error')).toMatchObject({
      class: 'builtins.FileNotFoundError',
      str: "[Errno 2] No such file or directory: '/mnt/tank/nope/deeper'",
      errno: 2,
      filename: '/mnt/tank/nope/deeper',
    });
    expect(raised('type error')).toMatchObject({
      class: 'builtins.TypeError',
      str: 'list indices must be integers or slices, not str',
    });
    expect(raised('no option')).toMatchObject({ class: 'truenas_api_client.exc.ValidationErrors' });
  });
});
