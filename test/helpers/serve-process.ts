import { spawn, type ChildProcess } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { CHEAP_HASHES, STOR_BIN } from './bin.js';

export interface ServeProcess {
  url: string;
  rpcUrl: string;
  /** `ws://127.0.0.1:PORT` (or wss), as an operator would pass to --url. */
  baseUrl: string;
  stateDir: string;
  adminKeyFile: string;
  child: ChildProcess;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns the built `bin/stor serve --port 0 --json` and waits for the line saying where it listens. */
export function spawnServe(stateDir: string, args: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [STOR_BIN, 'serve', '--port', '0', '--state', stateDir, '--json', ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      STOR_SESSION: 'off',
      STOR_CHECK_RESULTS: '1',
      ...CHEAP_HASHES,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n')[0];
      if (!out.includes('\n') || line === undefined) return;
      const info = JSON.parse(line) as { url: string; rpc_url: string; admin_key_file: string };
      resolve({
        url: info.url,
        rpcUrl: info.rpc_url,
        baseUrl: info.rpc_url.replace(/\/api\/current$/, ''),
        stateDir,
        adminKeyFile: info.admin_key_file,
        child,
        stderr: () => stderr,
        stop: (signal = 'SIGTERM') => {
          child.kill(signal);
          return exited;
        },
      });
    });
    // `exited` only resolves (an 'exit' listener), so no rejection is lost here.
    void exited.then((code) => reject(new Error(`stor serve exited with ${code} before listening:\n${stderr}`)));
  });
}

/** The login lines of `stor serve -v`'s stderr, one per login, successful or refused (src/core/server/login-log.ts). */
export function loginLines(server: ServeProcess): string[] {
  return server
    .stderr()
    .split('\n')
    .filter((l) => /^stor serve: login (ok|refused|pending): /.test(l));
}

/**
 * The logins that check a key or password: all but uploads authorized by a single-use token, which
 * a session issued (auth.generate_token) and which neither hashes a key nor counts against the
 * appliance's login limit.
 */
export function keyLogins(server: ServeProcess): string[] {
  return loginLines(server).filter((l) => !l.includes(': /_upload/ token,'));
}
