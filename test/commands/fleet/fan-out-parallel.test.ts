import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { run } from '../../../src/cli.js';
import { readCommandLine } from '../../../src/commands/framework/command-line.js';
import { ProfileStore } from '../../../src/core/config/profiles.js';
import { SessionPool } from '../../../src/core/session/pool.js';
import { clientEnv } from '../../helpers/client-env.js';
import { observedIo } from '../../helpers/observed-io.js';
import { startTestServer } from '../../helpers/server.js';

/**
 * A TCP proxy in front of `port`. `holdAnswers()` keeps what the server sends from then on (the
 * connections stay open) until `release()`; `holdConnects()` keeps new connections from reaching the
 * server until `release()`. `connections` counts the connections it was asked for.
 */
async function proxy(port: number) {
  let holding: 'answers' | 'connects' | undefined;
  const held: (() => void)[] = [];
  const open: Socket[] = [];
  let connections = 0;
  const pass = (client: Socket) => {
    const upstream = connect(port, '127.0.0.1');
    open.push(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => (holding === 'answers' ? held.push(() => client.write(d)) : client.write(d)));
  };
  const server = createServer((client) => {
    connections++;
    open.push(client);
    if (holding === 'connects') held.push(() => pass(client));
    else pass(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    server.close();
    for (const s of open) s.destroy();
  });
  return {
    port: (server.address() as { port: number }).port,
    get connections() {
      return connections;
    },
    holdAnswers: () => (holding = 'answers'),
    holdConnects: () => (holding = 'connects'),
    release() {
      holding = undefined;
      for (const f of held.splice(0)) f();
    },
  };
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { target?: string; exit_code?: number; summary?: { ok: number } });

describe('--parallel in the session agent bounds the targets whose connection is not open yet', () => {
  async function fleet() {
    const servers = [await startTestServer(), await startTestServer()];
    const front = await proxy(servers[0]!.port);
    const env = clientEnv();
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    await store.save('nas1', { url: `ws://127.0.0.1:${front.port}`, apiKey: servers[0]!.adminKey }, false);
    await store.save('nas2', { url: `ws://127.0.0.1:${servers[1]!.port}`, apiKey: servers[1]!.adminKey }, false);
    const pool = new SessionPool();
    onTestFinished(() => pool.closeAll());
    return { front, env, pool };
  }

  it('a target on an open pooled connection starts while --parallel 1 is taken by another', async () => {
    const { front, env, pool } = await fleet();
    // Both connections opened and logged in, as a warm agent holds them.
    const warm = observedIo(env, () => undefined);
    expect(await run(readCommandLine(['--targets', 'nas[1-2]', 'whoami', '--json']), warm, { sessions: pool })).toBe(0);

    // nas1's answers are held back until nas2's line is out: were nas2 queued behind nas1 (one
    // target at a time), nas1 would wait out its --timeout and fail. Generous: nas2's connection,
    // login and answer all come before nas1's deadline, and on a loaded machine 5 s was too short.
    front.holdAnswers();
    let releasedByOutput = false;
    const io = observedIo(env, (stdout) => {
      if (!releasedByOutput && /"target":"nas2"/.test(stdout)) {
        releasedByOutput = true;
        front.release();
      }
    });
    const argv = ['--targets', 'nas[1-2]', '--timeout', '60', 'whoami', '--json-lines', '--parallel', '1'];
    const code = await run(readCommandLine(argv), io, { sessions: pool });
    expect(releasedByOutput).toBe(true);
    expect(code).toBe(0);
    const got = lines(io.out());
    expect(got.map((l) => l.target ?? 'summary')).toEqual(['nas2', 'nas1', 'summary']);
    expect(got.at(-1)?.summary?.ok).toBe(2);
    // No new connection was opened for the held target.
    expect(front.connections).toBe(1);
  });

  it('targets whose connection is not open yet still run --parallel at a time', async () => {
    const { front, env, pool } = await fleet();
    // A fresh pool: nothing open. nas1's connection waits at the proxy; with --parallel 1, nas2
    // must not start (its output stays empty) until nas1 has ended.
    front.holdConnects();
    let nas2Before = false;
    const io = observedIo(env, (stdout) => {
      if (/"target":"nas2"/.test(stdout) && !/"target":"nas1"/.test(stdout)) nas2Before = true;
    });
    // Generous: only a hang guard, for two targets one after the other.
    const argv = ['--targets', 'nas[1-2]', '--timeout', '60', 'whoami', '--json-lines', '--parallel', '1'];
    const ran = run(readCommandLine(argv), io, { sessions: pool });
    // Let nas1 through once a whole turn of the event loop passed with nas1 waiting (nas2, were it
    // not bounded, would have answered meanwhile from a server on loopback).
    await new Promise((r) => setTimeout(r, 300));
    const outBeforeRelease = io.out();
    front.release();
    expect(await ran).toBe(0);
    expect(outBeforeRelease).toBe('');
    expect(nas2Before).toBe(false);
    expect(lines(io.out()).map((l) => l.target ?? 'summary')).toEqual(['nas1', 'nas2', 'summary']);
  });
});
