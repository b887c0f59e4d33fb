import { spawn } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHEAP_HASHES, STOR_BIN, spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { agentServing, SAFETY_KILL_MS, sessionEnv, viaAgent } from '../helpers/session.js';

/*
 * `stor download BIG - | slow-reader` through the session agent: the first stage passes the bytes
 * on only as fast as its reader takes them, so it holds a bounded amount, not the file. The reader
 * here takes nothing until the first stage has stopped reading from the agent (its read count,
 * /proc/PID/io rchar, unchanged over a second), or has read far more than any buffer holds. What
 * it read by then is what it would hold: a few buffers' worth when it waits for its stdout to
 * drain, the file (base64 in JSON lines) when it does not. A slow machine can only make the
 * first stage read less meanwhile, never more. `npm run build` first.
 */

const MiB = 1024 * 1024;
const FILE_BYTES = 32 * MiB;
/** More than the socket's, the pipe's and the streams' buffers together. */
const BOUND = 8 * MiB;

/** Bytes a live process has read with read(2) and the like (/proc/PID/io rchar). */
function bytesRead(pid: number): number {
  return Number(/^rchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a download to a slow reader through the session agent', () => {
  it(
    'keeps the first stage’s memory bounded: it reads from the agent only as fast as its stdout drains',
    async () => {
      const { env: session, dir } = sessionEnv();
      const env: Record<string, string> = { ...clientEnv(), ...session };
      expect((await spawnStor(['whoami'], { env: { ...env, STOR_SESSION: 'off' } })).code).toBe(0);
      const fd = openSync(join(env.STOR_HOME!, 'mnt/tank/big.img'), 'w');
      ftruncateSync(fd, FILE_BYTES);
      closeSync(fd);
      // The agent is running (viaAgent starts it) before the download is handed to it.
      expect((await viaAgent(['whoami'], env, dir)).code).toBe(0);
      await agentServing(dir);

      const child = spawn(process.execPath, [STOR_BIN, 'download', '/mnt/tank/big.img', '-'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...CHEAP_HASHES, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 10 * SAFETY_KILL_MS,
        killSignal: 'SIGKILL',
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      const stdout = child.stdout;
      stdout.pause();
      // The first bytes are here: the first stage is relaying (Node buffers a little of the pipe).
      await new Promise((r) => stdout.once('readable', r));
      const before = bytesRead(child.pid!);
      let last = before;
      for (let still = 0; still < 10 && last - before < BOUND;) {
        await pause(100);
        const now = bytesRead(child.pid!);
        still = now === last ? still + 1 : 0;
        last = now;
      }
      const heldBack = last - before;
      const chunks: Buffer[] = [];
      stdout.on('data', (d: Buffer) => chunks.push(d));
      stdout.resume();
      expect(await closed, stderr).toBe(0);
      expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(FILE_BYTES);
      expect(heldBack).toBeLessThan(BOUND);
    },
    20 * SAFETY_KILL_MS,
  );
});
