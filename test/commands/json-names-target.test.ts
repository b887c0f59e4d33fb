import { describe, expect, it } from 'vitest';
import { clientEnv } from '../helpers/client-env.js';
import { runStor } from '../helpers/run-stor.js';
import { startTestServer } from '../helpers/server.js';

const secretOf = (key: string): string => key.split('-')[1]!;

/**
 * A change's `--json` document says where the change was made (docs/COMMANDS.md "Output",
 * --json): the stderr note about the embedded appliance (src/commands/shared/target.ts) is for a
 * person; a script reads the document. Objects gain a `target` field; nothing else moves.
 */
describe('the --json document of a change names its target', () => {
  it('on the embedded appliance: its kind and state directory, as `whoami --json` names it, chosen or not', async () => {
    const env = clientEnv();
    const made = await runStor(['group', 'create', 'jsontarget', '--json'], { env });
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({
      name: 'jsontarget',
      target: { kind: 'embedded', stateDir: env.STOR_HOME },
    });
    const chosen = await runStor(['--profile', 'embedded', 'group', 'create', 'jsontarget2', '--json'], { env });
    const whoami = await runStor(['whoami', '--json'], { env });
    expect(JSON.parse(chosen.stdout).target).toEqual(JSON.parse(whoami.stdout).target);
  });

  it('on a remote appliance: its profile and URL, never its key', async () => {
    const server = await startTestServer();
    const env = clientEnv();
    const login = await runStor(['login', '--url', server.url, '--api-key-stdin', '--profile', 'lab', '--json'], {
      env,
      stdin: server.adminKey,
    });
    expect(login.code).toBe(0);
    const made = await runStor(['dataset', 'create', 'tank/jsontarget', '--json'], { env });
    expect(made.code).toBe(0);
    const doc = JSON.parse(made.stdout);
    expect(doc).toMatchObject({ id: 'tank/jsontarget', created: true });
    expect(doc.target).toEqual({ kind: 'remote', profile: 'lab', url: `ws://127.0.0.1:${server.port}` });
    expect(made.stdout).not.toContain(secretOf(server.adminKey));
    // A URL with no saved profile for it: the URL alone.
    const bare = await runStor(['dataset', 'create', 'tank/jsontarget2', '--json'], {
      env: { ...clientEnv(), STOR_URL: server.url, STOR_API_KEY: server.adminKey },
    });
    expect(JSON.parse(bare.stdout).target).toEqual({ kind: 'remote', url: `ws://127.0.0.1:${server.port}` });
  });

  it('dry runs and output without --json are as they were', async () => {
    const env = clientEnv();
    expect((await runStor(['dataset', 'create', 'tank/jsondry'], { env })).code).toBe(0);
    const dry = await runStor(['dataset', 'update', 'tank/jsondry', '--comments', 'x', '--dry-run', '--json'], { env });
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).not.toHaveProperty('target');
    const plain = await runStor(['group', 'create', 'jsonplain'], { env });
    expect(plain.stdout).not.toMatch(/target/);
  });

  it("`call` prints the method's own result untouched", async () => {
    const env = clientEnv();
    const made = await runStor(['call', 'group.create', '{"name":"jsoncall"}', '--json'], { env });
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).not.toHaveProperty('target');
  });
});
