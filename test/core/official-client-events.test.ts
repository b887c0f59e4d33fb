/**
 * The official client's `subscribe` (truenas/api_client at TS-25.10.1, `JSONRPCClient.subscribe`
 * and `_recv`'s `collection_update` case) hears `stor user create/update/delete` made against
 * `stor serve --emulate truenas-25.10.1`. Runs where the client is: set STOR_TEST_API_CLIENT
 * to a PYTHONPATH holding `truenas_api_client` and its `websocket` (websocket-client) package.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runStor } from '../helpers/run-stor.js';
import { SAFETY_MS } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { server25 } from '../conformance/harness.js';

const PYTHONPATH = process.env.STOR_TEST_API_CLIENT;

// Subscribes, says so, prints each event as a JSON line (callback(msg_type, **params); the client
// decodes `{"$date": …}` to datetime, printed as text), ends after three.
const SCRIPT = `
import json, sys, threading
from truenas_api_client import Client
done = threading.Event()
count = [0]
def cb(mtype, **params):
    print(json.dumps([mtype, params], default=str), flush=True)
    count[0] += 1
    if count[0] == 3: done.set()
with Client(sys.argv[1]) as c:
    assert c.call('auth.login_with_api_key', sys.argv[2])
    c.subscribe('user.query', cb, sync=True)
    print('"subscribed"', flush=True)
    done.wait(${SAFETY_MS / 1000})
`;

describe.skipIf(!PYTHONPATH)(
  'the official client hears collection_update (skipped: STOR_TEST_API_CLIENT not set)',
  () => {
    it('JSONRPCClient.subscribe("user.query") gets ADDED, CHANGED, REMOVED for stor user create/update/delete (MW/service/crud_service.py:204-216)', async () => {
      const server = await server25();
      const py = spawn('python3', ['-c', SCRIPT, server.rpcUrl, server.adminKey], {
        env: { ...process.env, PYTHONPATH },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      onTestFinished(() => void py.kill());
      const lines = createInterface({ input: py.stdout })[Symbol.asyncIterator]();
      expect((await lines.next()).value).toBe('"subscribed"');

      const env = {
        STOR_HOME: tempDir(),
        STOR_URL: server.rpcUrl.replace(/\/api\/current$/, ''),
        STOR_API_KEY: server.adminKey,
      };
      expect(
        (
          await runStor(['user', 'create', 'pyheard', '--password-stdin', '--json'], {
            env,
            stdin: 'Corr3ct horse-battery\n',
          })
        ).code,
      ).toBe(0);
      expect((await runStor(['user', 'update', 'pyheard', '--full-name', 'Heard B', '--json'], { env })).code).toBe(0);
      expect((await runStor(['user', 'delete', 'pyheard', '--yes', '--json'], { env })).code).toBe(0);

      const events: [string, Record<string, any>][] = [];
      for (let i = 0; i < 3; i++) events.push(JSON.parse((await lines.next()).value as string));
      expect(events.map(([type, p]) => [type, p.msg, p.collection])).toEqual([
        ['ADDED', 'added', 'user.query'],
        ['CHANGED', 'changed', 'user.query'],
        ['REMOVED', 'removed', 'user.query'],
      ]);
      expect(events[0]![1].fields).toMatchObject({ username: 'pyheard', password: 'Corr3ct horse-battery' });
      expect(events[1]![1].fields).toMatchObject({ full_name: 'Heard B', password: null });
      expect(events[2]![1]).not.toHaveProperty('fields');
      expect(await new Promise((resolve) => py.on('exit', resolve))).toBe(0);
    });
  },
);
