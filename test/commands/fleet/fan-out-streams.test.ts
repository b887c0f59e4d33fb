import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { run } from '../../../src/cli.js';
import { readCommandLine } from '../../../src/commands/framework/command-line.js';
import { ProfileStore } from '../../../src/core/config/profiles.js';
import { clientEnv } from '../../helpers/client-env.js';
import { observedIo } from '../../helpers/observed-io.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';

/**
 * A port in front of `port` that forwards nothing until `open()`: the target behind it is held
 * back (its connection waits) for as long as the test wants, and no longer.
 */
async function gate(port: number): Promise<{ port: number; open(): void }> {
  let opened = false;
  const waiting: Socket[] = [];
  const pass = (client: Socket) => {
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  };
  const server = createServer((client) => (opened ? pass(client) : waiting.push(client)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    server.close();
    for (const s of waiting) s.destroy();
  });
  return {
    port: (server.address() as { port: number }).port,
    open() {
      opened = true;
      for (const s of waiting.splice(0)) pass(s);
    },
  };
}

describe('--targets --json writes the array as the targets answer', () => {
  it('the targets before a held-back one are on stdout while it waits, and the whole is the same array', async () => {
    const servers = [await startTestServer(), await startTestServer(), await startTestServer()];
    const held = await gate(servers[2]!.port);
    const env = clientEnv();
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    for (const [i, s] of servers.entries())
      await store.save(
        `nas${i + 1}`,
        { url: `ws://127.0.0.1:${i === 2 ? held.port : s.port}`, apiKey: s.adminKey },
        false,
      );

    // nas3 is let through only once nas1's and nas2's entries are on stdout; were the array
    // written only at the end, it would wait out its --timeout and fail unreachable. Generous:
    // nas1's and nas2's work all comes before nas3's deadline, and a loaded machine is slow.
    let openedByOutput = false;
    const io = observedIo(env, (stdout) => {
      if (!openedByOutput && /"target": "nas2"[\s\S]*\n {2}\},?/.test(stdout)) {
        openedByOutput = true;
        held.open();
      }
    });
    const argv = ['--targets', 'nas[1-3]', '--timeout', '60', 'whoami', '--json'];
    const code = await run(readCommandLine(argv), io);
    expect(openedByOutput).toBe(true);
    expect(code).toBe(0);
    const out = JSON.parse(io.out()) as { target: string; ok: boolean }[];
    expect(out.map((o) => [o.target, o.ok])).toEqual([
      ['nas1', true],
      ['nas2', true],
      ['nas3', true],
    ]);
    // Byte for byte what the whole array at the end would be.
    expect(io.out()).toBe(`${JSON.stringify(out, null, 2)}\n`);
    const again = await runStor(argv, { env });
    expect(again.stdout).toBe(io.out());
  });
});
