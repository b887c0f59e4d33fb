import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, statSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOR_BIN, spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

const SIZE = 768 * 1024 * 1024;
const PART = /^\.stor-put-\d+-[0-9a-f-]{36}\.part$/;

/** A large local file that costs no disk: the upload still writes every byte of it. */
function sparseFile(): string {
  const path = join(tempDir('stor-e2e-files-'), 'big.img');
  const fd = openSync(path, 'w');
  ftruncateSync(fd, SIZE);
  closeSync(fd);
  return path;
}

const parts = (dir: string) => readdirSync(dir).filter((n) => PART.test(n));
const inFlight = (home: string) => {
  try {
    return readdirSync(join(home, 'uploads-in-flight'));
  } catch {
    return [];
  }
};

/**
 * Starts an embedded `stor upload` of a large file and freezes it (SIGSTOP) as soon as its
 * temporary file appears, so the signal under test surely lands mid-way.
 */
async function uploadFrozenMidway(env: Record<string, string>) {
  const tank = join(env.STOR_HOME!, 'mnt', 'tank');
  const child = spawn(process.execPath, [STOR_BIN, 'upload', sparseFile(), '/mnt/tank/'], {
    env: { PATH: process.env.PATH, STOR_SESSION: 'off', ...EMBEDDED_MEANT, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let part: string | undefined;
  while (!part) {
    if (child.exitCode !== null) throw new Error(`the upload ended before its temporary file was seen: ${stderr}`);
    part = parts(tank)[0];
    if (!part) await new Promise((r) => setTimeout(r, 2));
  }
  child.kill('SIGSTOP');
  expect(statSync(join(tank, part)).size).toBeLessThan(SIZE);
  expect(inFlight(env.STOR_HOME!)).toEqual([part]);
  return {
    tank,
    stderr: () => stderr,
    signal: async (signal: NodeJS.Signals) => {
      child.kill(signal);
      child.kill('SIGCONT');
      return exited;
    },
  };
}

async function listing(env: Record<string, string>): Promise<string[]> {
  const ls = await spawnStor(['ls', '/mnt/tank', '--json'], { env });
  expect(ls.code, ls.stderr).toBe(0);
  return (JSON.parse(ls.stdout) as { name: string }[]).map((e) => e.name);
}

describe('an embedded upload interrupted mid-way', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`removes its temporary file on ${signal} and exits ${code}, saying nothing was written`, async () => {
      const env = clientEnv();
      expect((await spawnStor(['whoami'], { env })).code).toBe(0);
      const upload = await uploadFrozenMidway(env);
      expect(await upload.signal(signal)).toEqual({ code, signal: null });
      expect(upload.stderr()).toContain(
        `stor: interrupted by ${signal}; /mnt/tank/big.img was not written, and nothing of it was left behind\n`,
      );
      expect(upload.stderr()).not.toMatch(/\n\s+at /); // no stack trace
      expect(readdirSync(upload.tank)).toEqual([]);
      expect(inFlight(env.STOR_HOME!)).toEqual([]);
      expect(await listing(env)).toEqual([]);
    });
  }

  it('killed outright (SIGKILL), leaves a temporary file that the next command sweeps before it lists', async () => {
    const env = clientEnv();
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
    const upload = await uploadFrozenMidway(env);
    expect(await upload.signal('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(parts(upload.tank)).toHaveLength(1);
    expect(await listing(env)).toEqual([]);
    expect(readdirSync(upload.tank)).toEqual([]);
    expect(inFlight(env.STOR_HOME!)).toEqual([]);
  });
});
