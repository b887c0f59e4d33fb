import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { STOR_BIN, storProcessEnv, type SpawnResult } from './bin.js';
import { storIn } from './run-stor.js';
import { tempDir } from './temp-dir.js';

/**
 * The binary the characterization tests run: this tree's bin/stor.js, or another build's
 * (STOR_BIN_UNDER_TEST=/path/to/bin/stor.js) held to the same expectations.
 */
export const BIN_UNDER_TEST = process.env.STOR_BIN_UNDER_TEST ?? STOR_BIN;

export function spawnUnderTest(args: string[], env: Record<string, string>, cwd?: string): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN_UNDER_TEST, ...args], {
      env: storProcessEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(cwd !== undefined ? { cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

type RunUnderTest = (args: string[], expectCode?: number) => Promise<SpawnResult>;

/** A fresh embedded appliance's client environment: its own STOR_HOME and config directory. */
const embeddedEnv = () => ({
  STOR_HOME: tempDir('stor-under-test-home-'),
  STOR_CONFIG_DIR: tempDir('stor-under-test-config-'),
});

/** The binary under test with `env`; `run(args, code)` fails the test on another exit code. */
function spawnedUnderTest(env: Record<string, string>, cwd?: string): RunUnderTest {
  return async (args, expectCode = 0) => {
    const r = await spawnUnderTest(args, env, cwd);
    expect(r.code, `stor ${args.join(' ')}\n${r.stderr}`).toBe(expectCode);
    return r;
  };
}

/** A fresh embedded appliance (its own STOR_HOME); `run(args, code)` fails the test on another exit code. */
export function embeddedUnderTest(cwd?: string): RunUnderTest {
  return spawnedUnderTest(embeddedEnv(), cwd);
}

/**
 * `stor` with `env`, in-process (storIn, the same `run()` the binary calls) unless
 * STOR_BIN_UNDER_TEST names another build, which is then spawned as before; `run(args, code)` fails
 * the test on another exit code. For scenarios that pin what the commands do, not what the process
 * does, where a spawn per command was most of the time.
 */
export function commandsUnderTest(env: Record<string, string>): RunUnderTest {
  return process.env.STOR_BIN_UNDER_TEST === undefined ? storIn(env) : spawnedUnderTest(env);
}

/** embeddedUnderTest through commandsUnderTest: in-process unless STOR_BIN_UNDER_TEST names another build. */
export function embeddedCommandsUnderTest(): RunUnderTest {
  return commandsUnderTest(embeddedEnv());
}
