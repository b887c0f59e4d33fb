import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { CHEAP_HASHES, collectOutput, STOR_BIN } from './bin.js';
import { tempDir } from './temp-dir.js';

/*
 * A second user on this machine: processes run as uid/gid 65534 (nobody) through setpriv, which
 * only root (CAP_SETUID, CAP_SETGID) can do. Tests of what another user can do to the session
 * agent run these against an agent of this process's user (root).
 */

export const OTHER_UID = 65534;
const SETPRIV = '/usr/bin/setpriv';
const DROP = ['--reuid', String(OTHER_UID), '--regid', String(OTHER_UID), '--clear-groups'];

/** The probe another user runs against the agent's directory (other-user-probe.mjs). */
export const PROBE = fileURLToPath(new URL('./other-user-probe.mjs', import.meta.url));

/**
 * Why processes of another uid cannot be run here, or undefined when they can: not root, no
 * setpriv, privileges that cannot be dropped (no CAP_SETUID in a sandbox), or a node or stor the
 * other uid cannot read.
 */
export function otherUserUnavailable(): string | undefined {
  if (process.getuid?.() !== 0)
    return `not root (uid ${process.getuid?.()}): only root can run a process as uid ${OTHER_UID}`;
  if (!existsSync(SETPRIV)) return `${SETPRIV} is missing`;
  const script = `require('fs').accessSync(${JSON.stringify(STOR_BIN)}, 4); process.stdout.write(String(process.getuid()) + ':' + process.getgid() + ':' + process.getgroups().join(','))`;
  const r = spawnSync(SETPRIV, [...DROP, process.execPath, '-e', script], { encoding: 'utf8' });
  if (r.error) return `setpriv did not run: ${r.error.message}`;
  const expected = `${OTHER_UID}:${OTHER_UID}:${OTHER_UID}`;
  if (r.status !== 0 || (r.stdout !== expected && r.stdout !== `${OTHER_UID}:${OTHER_UID}:`)) {
    return `setpriv cannot run node as uid ${OTHER_UID} here (exit ${r.status}: ${(r.stderr || r.stdout).trim().split('\n')[0]})`;
  }
  return undefined;
}

/** Runs `node ...args` as the other uid, with `env` and nothing else of this environment but PATH. */
export function spawnAsOther(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(SETPRIV, [...DROP, process.execPath, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

/** Runs `node ...args` as the other uid to its end. */
export function runAsOther(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return collectOutput(spawnAsOther(args, env));
}

/** `stor ...args` (the built binary) as the other uid. */
export function storAsOther(args: string[], env: Record<string, string>) {
  return runAsOther([STOR_BIN, ...args], { STOR_CHECK_RESULTS: '1', ...CHEAP_HASHES, ...env });
}

/** A fresh directory of the other uid's own (mode 0700), removed when the test ends. */
export function otherUsersDir(prefix = 'stor-other-'): string {
  const dir = tempDir(prefix);
  chownSync(dir, OTHER_UID, OTHER_UID);
  chmodSync(dir, 0o700);
  return dir;
}

/** The other uid's stand-in for an agent: makes `dir` (0700) if missing, listens at `dir/name` (0600), says `connection` for each. */
const LISTENER = `
const { chmodSync, mkdirSync } = require('node:fs');
const { createServer } = require('node:net');
const [dir, path] = process.argv.slice(1);
mkdirSync(dir, { recursive: true, mode: 0o700 });
createServer((c) => { process.stdout.write('connection\\n'); c.destroy(); }).listen(path, () => {
  chmodSync(path, 0o600);
  process.stdout.write('listening\\n');
});
`;

/**
 * A socket the other uid listens on, at `dir/name` (`dir` made by that uid when missing). Resolves
 * once it listens; `connections()` counts who connected so far, as far as its output has come.
 */
export function listenerOfOther(
  dir: string,
  name: string,
): Promise<{ socket: string; connections(): number; lines(): string[] }> {
  const socket = `${dir}/${name}`;
  const child = spawnAsOther(['-e', LISTENER, dir, socket]);
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl !== -1; nl = out.indexOf('\n')) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        lines.push(line);
        if (line === 'listening')
          resolve({
            socket,
            connections: () => lines.filter((l) => l === 'connection').length,
            lines: () => [...lines],
          });
      }
    });
    child.on('exit', (code) =>
      reject(new Error(`the other uid's listener exited (${code}) before listening:\n${stderr}`)),
    );
  });
}
