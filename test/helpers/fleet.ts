/**
 * A fleet for the end-to-end tests of `--targets`: profiles imported from a fleet file by the
 * built binary, and the binary run with its stdout read line by line as it comes.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { STOR_BIN, spawnStor, storProcessEnv } from './bin.js';
import type { ServeProcess } from './serve-process.js';
import { tempDir } from './temp-dir.js';

/** A loopback port nothing listens on: bound, then closed. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Writes `fleet.yaml` (each key in a 0600 file beside it) and imports it with the built binary. */
export async function importFleet(
  env: Record<string, string>,
  entries: { name: string; url: string; key: string; username?: string }[],
): Promise<void> {
  const dir = tempDir('stor-fleet-');
  const lines = entries.flatMap((e) => {
    writeFileSync(join(dir, `${e.name}.key`), `${e.key}\n`, { mode: 0o600 });
    return [
      `- name: ${e.name}`,
      `  url: ${e.url}`,
      `  key_file: ${e.name}.key`,
      ...(e.username ? [`  username: ${e.username}`] : []),
    ];
  });
  writeFileSync(join(dir, 'fleet.yaml'), `${lines.join('\n')}\n`);
  const imported = await spawnStor(['profile', 'import', join(dir, 'fleet.yaml')], { env });
  expect(imported.code, imported.stderr).toBe(0);
}

/** The administrator's key of a spawned `stor serve`. */
export const keyOf = (s: ServeProcess) => readFileSync(s.adminKeyFile, 'utf8').trim();

/**
 * The built binary, its stdout read line by line as it comes: `line()` resolves with the next
 * line once the child has written it, `done` with the exit code and stderr once it has ended.
 */
export function streamStor(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [STOR_BIN, ...args], {
    env: storProcessEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let partial = '';
  let ended = false;
  let all = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    all += chunk;
    partial += chunk;
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      ended = true;
      for (const w of waiting.splice(0)) w(undefined);
      resolve({ code, stderr });
    }),
  );
  return {
    line: (): Promise<string | undefined> =>
      lines.length > 0
        ? Promise.resolve(lines.shift())
        : ended
          ? Promise.resolve(undefined)
          : new Promise((r) => waiting.push(r)),
    /** Everything written to stdout so far. */
    stdout: () => all,
    kill: (signal: NodeJS.Signals) => child.kill(signal),
    done,
  };
}
