import { chmodSync, chownSync, linkSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { E } from '../../src/core/error-catalogue.js';
import { spawnStor } from '../helpers/bin.js';
import { tempDir } from '../helpers/temp-dir.js';
import { clientEnv } from '../helpers/client-env.js';
import {
  listenerOfOther,
  OTHER_UID,
  otherUserUnavailable,
  otherUsersDir,
  PROBE,
  runAsOther,
  storAsOther,
} from '../helpers/other-user.js';
import {
  AGENT_BIN,
  agentPidsOf,
  agentServing,
  builtSocketName,
  killAgentsOf,
  rawRequest,
  sessionEnv,
  spawnAgent,
  until,
} from '../helpers/session.js';

/*
 * Another user against the session agent, for real: a second uid (65534, through setpriv) tries to
 * use, replace or remove the agent's socket of this process's user (root), and root's stor is
 * shown a directory and a socket that uid made. Every refusal asserted is the one the agent's
 * directory (0700) or socket (0600) makes: the way to them is open to the other uid, and the
 * probe shows it got that far. Drives the built bundle: `npm run build` first.
 */

let unavailable: string | undefined;
beforeAll(() => {
  unavailable = otherUserUnavailable();
});

/** Skips (with why) where no process of another uid can be run; before the test registers anything to clean up. */
function needsOtherUser(ctx: { skip: (note?: string) => never }): void {
  if (unavailable) ctx.skip(`no second uid: ${unavailable}`);
}

const errorOf = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; message: string } }).error;

/** Root's agent, serving in a runtime directory that the other uid may enter (0755) up to the agent's own directory. */
async function rootsAgent() {
  const { env, runtime, dir } = sessionEnv();
  chmodSync(runtime, 0o755);
  spawnAgent(env);
  const { socket, pid } = await agentServing(dir);
  return { env, runtime, dir, socket, pid };
}

/** What the other uid's probe (other-user-probe.mjs) saw and could do. */
async function probeAsOther(at: { runtime: string; dir: string; socket: string }): Promise<Record<string, unknown>> {
  const home = otherUsersDir();
  const own = join(home, 'own');
  writeFileSync(own, 'x');
  chownSync(own, OTHER_UID, OTHER_UID);
  const r = await runAsOther([PROBE, JSON.stringify({ ...at, own })]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

const ALL_REFUSED = {
  connect: 'EACCES',
  create: 'EACCES',
  mkdir: 'EACCES',
  symlink: 'EACCES',
  replace: 'EACCES',
  unlink: 'EACCES',
};

describe('another uid against the agent of this user', () => {
  it('cannot connect to its socket, nor create, replace or remove anything in its directory: the directory (0700) stops it', async (ctx) => {
    needsOtherUser(ctx);
    const { runtime, dir, socket, pid } = await rootsAgent();
    const before = readdirSync(dir);
    const seen = await probeAsOther({ runtime, dir, socket });
    // It got as far as the agent's directory: the parent lists it, and the directory itself is seen.
    expect(seen).toMatchObject({ runtimeLists: true, dir: { uid: 0, mode: 0o700 }, socket: 'EACCES' });
    expect(seen).toMatchObject(ALL_REFUSED);
    expect(readdirSync(dir)).toEqual(before);
    expect(await rawRequest(socket, { op: 'ping' })).toMatchObject({ t: 'pong', pid });
  });

  it('cannot connect to its socket when the directory lets it through: the socket (0600) stops it, and only the mode (0666 connects)', async (ctx) => {
    needsOtherUser(ctx);
    const { runtime, dir, socket, pid } = await rootsAgent();
    const before = readdirSync(dir);
    // Search only: the other uid reaches the socket but may neither list nor write the directory.
    chmodSync(dir, 0o711);
    const seen = await probeAsOther({ runtime, dir, socket });
    expect(seen).toMatchObject({ runtimeLists: true, dir: { uid: 0, mode: 0o711 }, socket: { uid: 0, mode: 0o600 } });
    expect(seen).toMatchObject(ALL_REFUSED);
    // The control: the same probe connects once the socket's mode lets it, so the EACCES above was the mode's.
    chmodSync(socket, 0o666);
    expect(await probeAsOther({ runtime, dir, socket })).toMatchObject({
      connect: 'connected',
      replace: 'EACCES',
      unlink: 'EACCES',
    });
    chmodSync(socket, 0o600);
    chmodSync(dir, 0o700);
    expect(readdirSync(dir)).toEqual(before);
    expect(await rawRequest(socket, { op: 'ping' })).toMatchObject({ t: 'pong', pid });
  });

  it("its stor, pointed at this user's directory (XDG_RUNTIME_DIR), refuses it with SESSION_DIR_UNSAFE (owned by uid 0); its agent will not serve there", async (ctx) => {
    needsOtherUser(ctx);
    const { runtime, dir, socket, pid } = await rootsAgent();
    const before = readdirSync(dir);
    const home = otherUsersDir();
    const env = {
      HOME: home,
      STOR_HOME: join(home, 'state'),
      STOR_CONFIG_DIR: join(home, 'config'),
      XDG_RUNTIME_DIR: runtime,
      STOR_SESSION: 'on',
      STOR_SESSION_IDLE: '60',
    };
    for (const args of [['whoami'], ['session', 'list'], ['session', 'stop', '--all']]) {
      const r = await storAsOther([...args, '--json'], env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(errorOf(r.stderr)).toMatchObject({
        code: E.SESSION_DIR_UNSAFE.code,
        message: expect.stringContaining(`${dir} is owned by uid 0, not by this user (uid ${OTHER_UID})`),
      });
    }
    // An agent of its own, started by hand on that directory, gives up (exit 1) and leaves it alone.
    expect((await runAsOther([AGENT_BIN], env)).code).toBe(1);
    expect(readdirSync(dir)).toEqual(before);
    expect(await rawRequest(socket, { op: 'ping' })).toMatchObject({ t: 'pong', pid });
  });
});

describe("this user's stor against what another uid made", () => {
  it('a directory another uid made (with its socket listening in it) is refused with SESSION_DIR_UNSAFE, and nothing in it is connected to', async (ctx) => {
    needsOtherUser(ctx);
    // As `sudo -E stor` would see another user's XDG_RUNTIME_DIR.
    const runtime = otherUsersDir('stor-run-');
    chmodSync(runtime, 0o755);
    const dir = join(runtime, 'stor');
    const listener = await listenerOfOther(dir, builtSocketName());
    expect(lstatSync(dir)).toMatchObject({ uid: OTHER_UID });
    const env = { ...clientEnv(), XDG_RUNTIME_DIR: runtime, STOR_SESSION: 'on', STOR_SESSION_IDLE: '60' };
    try {
      for (const args of [['whoami'], ['session', 'list'], ['session', 'stop', '--all']]) {
        const r = await spawnStor([...args, '--json'], { env });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
        expect(errorOf(r.stderr)).toMatchObject({
          code: E.SESSION_DIR_UNSAFE.code,
          message: expect.stringContaining(`${dir} is owned by uid ${OTHER_UID}, not by this user (uid 0)`),
          // chmod cannot fix another user's directory: the hint says who can.
          hint: expect.stringContaining('belongs to another user'),
        });
      }
      expect(await spawnAgent(env).exited).toBe(1);
      expect(agentPidsOf(runtime)).toEqual([]);
      await expectNoConnectionBefore(listener);
    } finally {
      killAgentsOf(runtime);
    }
  });

  it("another uid's runtime directory with no agent directory yet (`sudo -E stor`): the command runs in its own process and makes nothing there, so that user is not locked out", async () => {
    const runtime = tempDir('stor-run-');
    onTestFinished(() => killAgentsOf(runtime));
    chownSync(runtime, OTHER_UID, OTHER_UID);
    const env = { ...clientEnv(), XDG_RUNTIME_DIR: runtime, STOR_SESSION: 'on', STOR_SESSION_IDLE: '60' };
    for (let i = 0; i < 2; i++) {
      const r = await spawnStor(['whoami', '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(readdirSync(runtime)).toEqual([]);
    expect(agentPidsOf(runtime)).toEqual([]);
  });

  it("a socket another uid owns, in this user's own 0700 directory, is refused with SESSION_DIR_UNSAFE and not connected to", async (ctx) => {
    needsOtherUser(ctx);
    const listener = await listenerOfOther(join(otherUsersDir(), 'stor'), 'agent.sock');
    const { env, runtime, dir } = sessionEnv();
    mkdirSync(dir, { mode: 0o700 });
    // The other uid's socket, under the name the agent's would have (root may link another's file).
    const socket = join(dir, builtSocketName());
    linkSync(listener.socket, socket);
    expect(lstatSync(socket)).toMatchObject({ uid: OTHER_UID });
    expect(lstatSync(socket).mode & 0o777).toBe(0o600);
    for (const args of [['whoami'], ['session', 'list'], ['session', 'stop', '--all']]) {
      const r = await spawnStor([...args, '--json'], { env: { ...clientEnv(), ...env } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(errorOf(r.stderr)).toMatchObject({
        code: E.SESSION_DIR_UNSAFE.code,
        message: expect.stringContaining(`${socket} is owned by uid ${OTHER_UID}, not by this user (uid 0)`),
      });
    }
    expect(agentPidsOf(runtime)).toEqual([]);
    await expectNoConnectionBefore(listener);
  });
});

/**
 * That the other uid's listener was never connected to: this test connects once itself, and that
 * connection is the first the listener reports (it reports them in the order they came).
 */
async function expectNoConnectionBefore(listener: {
  socket: string;
  connections(): number;
  lines(): string[];
}): Promise<void> {
  await new Promise<void>((resolve) => {
    const s = connect(listener.socket, () => {
      s.destroy();
      resolve();
    });
    s.on('error', () => resolve());
  });
  await until('the listener reports the control connection', () => listener.connections() > 0);
  expect(listener.lines()).toEqual(['listening', 'connection']);
}
