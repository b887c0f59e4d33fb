import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { CHEAP_HASHES } from './cheap-hashes.js';
import { tempDir } from './temp-dir.js';

const MAIN = fileURLToPath(new URL('./run-request-agent-main.mjs', import.meta.url));

/** One `run` request as the stand-in agent logged it: its argv and the kinds of message it answered with. */
export interface HandledRun {
  argv: string[];
  sent: string[];
}

export interface RunRequestAgent {
  child: ChildProcess;
  /** The environment a first stage needs to find it: sessions on, its private runtime directory. */
  env: Record<string, string>;
  socket: string;
  handled: HandledRun[];
  /** Kills it (SIGKILL unless told) and waits for its exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the stand-in agent (run-request-agent-main.mjs: a Unix socket serving the real
 * handleRun from dist/, so `npm run build` first) in a private XDG_RUNTIME_DIR, and kills it
 * when the test ends: no agent outlives the suite.
 */
export function startRunRequestAgent(): Promise<RunRequestAgent> {
  const runtime = tempDir('stor-runtime-');
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      XDG_RUNTIME_DIR: runtime,
      STOR_CHECK_RESULTS: '1',
      ...CHEAP_HASHES,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) {
      // A stopped process takes SIGKILL; anything else, once it runs again.
      child.kill('SIGCONT');
      child.kill(signal);
    }
    await exited;
  };
  onTestFinished(() => kill());
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const handled: HandledRun[] = [];
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl !== -1; nl = out.indexOf('\n')) {
        const line = JSON.parse(out.slice(0, nl)) as { listening?: string } & HandledRun;
        out = out.slice(nl + 1);
        if (line.listening)
          resolve({
            child,
            env: { STOR_SESSION: 'on', XDG_RUNTIME_DIR: runtime },
            socket: line.listening,
            handled,
            kill,
          });
        else handled.push(line);
      }
    });
    void exited.then(() => reject(new Error(`the stand-in agent exited before listening:\n${stderr}`)));
  });
}
