import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOR_BIN, spawnStor } from '../../helpers/bin.js';
import { clientEnv, remoteEnv } from '../../helpers/client-env.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const PART = /^\.big\.img\.stor-[0-9a-f]{8}\.part$/;

/** The built binary with stdout kept as bytes. */
function spawnBytes(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [STOR_BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_SESSION: 'off', ...EMBEDDED_MEANT, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks), stderr }));
  });
}

/** Both targets as a user meets them: the embedded appliance, and `stor serve` spawned. */
const TARGETS = [
  [
    'embedded',
    async () => {
      const env = clientEnv();
      expect((await spawnStor(['whoami'], { env })).code).toBe(0);
      return { env, tank: join(env.STOR_HOME!, 'mnt/tank') };
    },
  ],
  [
    'remote (stor serve)',
    async () => {
      const server = await spawnServe(tempDir('stor-serve-state-'));
      return { env: remoteEnv(server), tank: join(server.stateDir, 'mnt/tank') };
    },
  ],
] as const;

describe.each(TARGETS)('stor download with the built binary, %s target', (_name, open) => {
  it('writes 20 MiB to stdout with `-`, byte for byte, and nothing else on stdout or stderr', async () => {
    const { env, tank } = await open();
    const bytes = randomBytes(20 * 1024 * 1024);
    mkdirSync(join(tank, 'docs'));
    writeFileSync(join(tank, 'docs/blob.bin'), bytes);
    const r = await spawnBytes(['download', '/mnt/tank/docs/blob.bin', '-'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(bytes.length);
    expect(sha256(r.stdout)).toBe(sha256(bytes));

    const json = await spawnBytes(['download', '/mnt/tank/docs/blob.bin', '-', '--json'], env);
    expect(json.code).toBe(2);
    expect(json.stdout.length).toBe(0);
    expect(JSON.parse(json.stderr).error.code).toBe('USAGE');
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`on ${signal} mid-way exits ${code}, leaving no temporary file and no destination`, async () => {
      const { env, tank } = await open();
      // Sparse on the appliance side: costs no disk there; the client writes only what arrives before the signal.
      const fd = openSync(join(tank, 'big.img'), 'w');
      ftruncateSync(fd, 512 * 1024 * 1024);
      closeSync(fd);
      const local = tempDir('stor-dl-');
      const child = spawn(process.execPath, [STOR_BIN, 'download', '/mnt/tank/big.img', local], {
        env: { PATH: process.env.PATH, STOR_SESSION: 'off', ...EMBEDDED_MEANT, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (c, s) => resolve({ code: c, signal: s })),
      );
      // Frozen as soon as some bytes are in the temporary file, so the signal surely lands mid-way.
      let part: string | undefined;
      while (!part || statSync(join(local, part)).size === 0) {
        if (child.exitCode !== null) throw new Error(`the download ended before the test could stop it: ${stderr}`);
        part = readdirSync(local).find((n) => PART.test(n));
        await new Promise((r) => setTimeout(r, 2));
      }
      child.kill('SIGSTOP');
      expect(statSync(join(local, part)).size).toBeLessThan(512 * 1024 * 1024);
      child.kill(signal);
      child.kill('SIGCONT');
      expect(await exited).toEqual({ code, signal: null });
      expect(stderr).toBe(
        `stor: interrupted by ${signal}; ${join(local, 'big.img')} was not written, and nothing of it was left behind\n`,
      );
      expect(readdirSync(local)).toEqual([]);
    });
  }
});
