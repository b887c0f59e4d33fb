import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommandContext } from '../../../src/commands/framework/context.js';
import type { GlobalOptions } from '../../../src/commands/framework/global-options.js';
import type { IO } from '../../../src/commands/output/io.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';
import { startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * CommandContext.transport(whileLoggingIn): `stor upload` loads its HTTP client there, while the
 * appliance checks the key (bench/HISTORY.md, "the upload's fixed costs").
 */

function ioWith(env: Record<string, string>): IO {
  const stdin = Readable.from([]) as IO['stdin'];
  return {
    stdout: { write: () => true, isTTY: false, columns: 100 },
    stderr: { write: () => true, isTTY: false, columns: 100 },
    color: { stdout: 0, stderr: 0 },
    stdin,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_SESSION: 'off', ...EMBEDDED_MEANT, ...env },
    cwd: process.cwd(),
  } as IO;
}

describe('CommandContext.transport(whileLoggingIn)', () => {
  it("is told once a WebSocket target's login is written, and no more on later calls", async () => {
    const server = await startTestServer();
    const ctx = new CommandContext(
      ioWith({ STOR_HOME: tempDir(), STOR_URL: server.url, STOR_API_KEY: server.adminKey }),
      {} as GlobalOptions,
    );
    let told = 0;
    let toldWhenOpen = -1;
    const t = await ctx
      .transport(() => told++)
      .then((opened) => {
        toldWhenOpen = told;
        return opened;
      });
    expect(toldWhenOpen).toBe(1);
    await ctx.transport(() => told++);
    expect(told).toBe(1);
    await t.close();
  });

  it('is never told for the embedded target, which has no login to wait for', async () => {
    const ctx = new CommandContext(ioWith({ STOR_HOME: tempDir() }), {} as GlobalOptions);
    let told = 0;
    const t = await ctx.transport(() => told++);
    expect(told).toBe(0);
    await t.close();
  });
});
