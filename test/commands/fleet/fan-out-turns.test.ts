import { Readable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fanOut, TARGETS_PER_TURN } from '../../../src/commands/fleet/fan-out.js';
import { CommandContext } from '../../../src/commands/framework/context.js';
import type { GlobalOptions } from '../../../src/commands/framework/global-options.js';
import type { IO } from '../../../src/commands/output/io.js';
import { ProfileStore } from '../../../src/core/config/profiles.js';
import { SessionPool } from '../../../src/core/session/pool.js';
import { clientEnv } from '../../helpers/client-env.js';

function quietIo(env: Record<string, string>): IO {
  return {
    stdout: { write: () => true, isTTY: false },
    stderr: { write: () => true, isTTY: false },
    color: { stdout: 0, stderr: 0 },
    stdin: Object.assign(Readable.from([]), { isTTY: false }) as IO['stdin'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_SESSION: 'off', ...env },
    cwd: process.cwd(),
  };
}

describe('--targets in the session agent', () => {
  // A pooled connection holds a call's frame until the next tick (RemoteTransport.corkForTick):
  // were every target set up in the same drain of the microtask queue, no request would leave
  // until the last target had made its call.
  it('starts each further group of targets once the ticks queued by the groups before it have run', async () => {
    const env = clientEnv();
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    const count = 2 * TARGETS_PER_TURN + 3;
    const names = Array.from({ length: count }, (_, i) => `nas${i + 1}`);
    // Never connected to: the run below makes no call.
    for (const name of names) await store.save(name, { url: 'ws://127.0.0.1:9', apiKey: `1-${name}` }, false);
    const pool = new SessionPool();
    onTestFinished(() => pool.closeAll());
    const globals = { targets: `nas[1-${count}]` } as GlobalOptions;
    const base = new CommandContext(quietIo(env), globals, { sessions: pool });

    const ticked = new Set<string>();
    const tickedAtStart = new Map<string, number>();
    const result = await fanOut(base, {
      findings: 'findings',
      parallel: 8,
      run: (ctx) => {
        const me = ctx.globals.profile!;
        tickedAtStart.set(me, ticked.size);
        process.nextTick(() => ticked.add(me));
        return { data: me, view: { kind: 'text' } };
      },
    });
    // Each target of a group found every target of the groups before it ticked.
    const expected = names.map((name, i) => [name, i - (i % TARGETS_PER_TURN)]);
    expect(names.map((name) => [name, tickedAtStart.get(name)])).toEqual(expected);
    expect(result.data.map((o) => [o.target, o.data])).toEqual(names.map((name) => [name, name]));
  });
});
