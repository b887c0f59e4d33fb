import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startAgent } from '../../src/agent/agent.js';
import { SessionPool } from '../../src/core/session/pool.js';
import { parseEndpoint } from '../../src/core/transport/endpoint.js';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { builtId, sessionEnv } from '../helpers/session.js';
import { tempDir } from '../helpers/temp-dir.js';

/*
 * The agent's control side against a real `stor serve`: an agent runs in this test's process with a
 * pool it holds, so that its sessions can be opened here (commands handed over to the agent are the
 * runner's part); every command is the built binary with sessions on.
 */

async function agentWithSession(serve: ServeProcess, key: string) {
  const { env } = sessionEnv();
  const pool = new SessionPool();
  const agent = await startAgent(env, pool, builtId());
  if ('exitCode' in agent) throw new Error(`the agent did not start (${agent.exitCode})`);
  onTestFinished(() => void agent.stop());
  const endpoint = parseEndpoint(serve.baseUrl);
  const lease = await pool.open({ endpoint, apiKey: key, insecure: false }, 10);
  await lease.call('core.ping');
  await lease.close();
  return { env, pool, display: endpoint.display };
}

describe('session control against a real stor serve', () => {
  it('`stor session list` shows each session: target, user, age, idle, calls (table and --json), never a key', async () => {
    const serve = await spawnServe(tempDir());
    const key = readFileSync(serve.adminKeyFile, 'utf8').trim();
    const { env, display } = await agentWithSession(serve, key);
    const json = await spawnStor(['session', 'list', '--json'], { env: { ...clientEnv(), ...env } });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        target: display,
        user: 'truenas_admin',
        age_seconds: expect.any(Number),
        idle_seconds: expect.any(Number),
        calls: 1,
        active: 0,
        connected: true,
      },
    ]);
    const table = await spawnStor(['session', 'list'], { env: { ...clientEnv(), ...env } });
    expect(table.stdout).toContain(display);
    expect(table.stdout).toContain('truenas_admin');
    expect(json.stdout + table.stdout).not.toContain(key);
  });

  it("`stor session stop` closes the selected target's session only", async () => {
    const serve = await spawnServe(tempDir());
    const key = readFileSync(serve.adminKeyFile, 'utf8').trim();
    const { env, pool } = await agentWithSession(serve, key);
    const other = await spawnStor(['session', 'stop', '--json'], {
      env: { ...clientEnv(), ...env, STOR_URL: 'ws://127.0.0.1:9', STOR_API_KEY: key },
    });
    expect(JSON.parse(other.stdout)).toEqual({ agent: true, closed: 0, stopped: false });
    expect(await pool.list()).toHaveLength(1);
    const r = await spawnStor(['session', 'stop', '--json'], {
      env: { ...clientEnv(), ...env, STOR_URL: serve.baseUrl, STOR_API_KEY: key },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ agent: true, closed: 1, stopped: false });
    expect(await pool.list()).toEqual([]);
  });

  it("`stor logout` closes the profile's session", async () => {
    const serve = await spawnServe(tempDir());
    const key = readFileSync(serve.adminKeyFile, 'utf8').trim();
    const client = clientEnv();
    const login = await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', 'nas', '--json'], {
      env: client,
      stdin: key,
    });
    expect(login.code, login.stderr).toBe(0);
    const { env, pool } = await agentWithSession(serve, key);
    const r = await spawnStor(['logout'], { env: { ...client, ...env } });
    expect(r.code, r.stderr).toBe(0);
    expect(await pool.list()).toEqual([]);
  });

  it("`stor profile remove` closes the profile's session", async () => {
    const serve = await spawnServe(tempDir());
    const key = readFileSync(serve.adminKeyFile, 'utf8').trim();
    const client = clientEnv();
    expect(
      (
        await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', 'nas'], {
          env: client,
          stdin: key,
        })
      ).code,
    ).toBe(0);
    const { env, pool } = await agentWithSession(serve, key);
    const r = await spawnStor(['profile', 'remove', 'nas'], { env: { ...client, ...env } });
    expect(r.code, r.stderr).toBe(0);
    expect(await pool.list()).toEqual([]);
  });

  it("a `stor login` that replaces a profile's key closes the old key's session", async () => {
    const serve = await spawnServe(tempDir());
    const key = readFileSync(serve.adminKeyFile, 'utf8').trim();
    const client = clientEnv();
    expect(
      (
        await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', 'nas'], {
          env: client,
          stdin: key,
        })
      ).code,
    ).toBe(0);
    const created = await spawnStor(
      ['call', 'api_key.create', JSON.stringify({ name: 'second', username: 'truenas_admin' })],
      { env: client },
    );
    const second = (JSON.parse(created.stdout) as { key: string }).key;
    const { env, pool } = await agentWithSession(serve, key);
    // The same key again leaves the session alone.
    expect(
      (
        await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', 'nas'], {
          env: { ...client, ...env },
          stdin: key,
        })
      ).code,
    ).toBe(0);
    expect(await pool.list()).toHaveLength(1);
    const r = await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', 'nas'], {
      env: { ...client, ...env },
      stdin: second,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await pool.list()).toEqual([]);
  });

  it('logout with no agent running does nothing and succeeds', async () => {
    const serve = await spawnServe(tempDir());
    const key = readFileSync(serve.adminKeyFile, 'utf8').trim();
    const client = clientEnv();
    const { env } = sessionEnv();
    expect(
      (
        await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', 'nas'], {
          env: client,
          stdin: key,
        })
      ).code,
    ).toBe(0);
    const r = await spawnStor(['logout', '--json'], { env: { ...client, ...env } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});
