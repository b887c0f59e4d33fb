import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { Readable } from 'node:stream';
import { startEarlyTarget } from '../../../src/commands/startup/early-target.js';
import { readCommandLine } from '../../../src/commands/framework/command-line.js';
import type { IO } from '../../../src/commands/output/io.js';
import { resolveTarget } from '../../../src/commands/framework/target.js';
import type { RemoteTransport } from '../../../src/core/transport/remote.js';
import { spawnStor } from '../../helpers/bin.js';
import { runStor } from '../../helpers/run-stor.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { startStandinAppliance, type StandinAnswer } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A TCP listener that records every byte sent to it and answers nothing. */
async function decoy(): Promise<{ url: string; received: () => string; connections: () => number }> {
  let received = '';
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    socket.on('data', (d) => (received += d.toString('latin1')));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `ws://127.0.0.1:${port}`, received: () => received, connections: () => connections };
}

/** A loopback port that was free a moment ago: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// The built binary opens the target of a qualifying read command while the CLI loads
// (src/commands/startup/early-target.ts); runStor, in-process, never does. Both must behave alike.
describe('the head start of bin/stor', () => {
  it('creates no state on a fresh machine for help, a usage error, or a profile command', async () => {
    const home = join(tempDir(), 'state');
    const config = join(tempDir(), 'config');
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: config };
    expect((await spawnStor(['--help'], { env })).code).toBe(0);
    expect((await spawnStor(['whoami', '--help'], { env })).code).toBe(0);
    expect((await spawnStor(['whoami', 'extra'], { env })).code).toBe(2);
    expect((await spawnStor(['profile', 'list'], { env })).code).toBe(0);
    expect(existsSync(home)).toBe(false);
    expect(existsSync(config)).toBe(false);
  });

  it('sends the key only where the command itself goes: --url over STOR_URL, nothing for a usage error', async () => {
    const serve = await spawnServe(tempDir());
    const key = readFileSync(serve.adminKeyFile, 'utf8').trim();
    const elsewhere = await decoy();
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_URL: elsewhere.url, STOR_API_KEY: key };
    const ok = await spawnStor(['--url', serve.baseUrl, 'whoami', '--json'], { env });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).target.url).toBe(serve.baseUrl);
    const usage = await spawnStor(['whoami', '--bogus'], { env });
    expect(usage.code).toBe(2);
    expect(elsewhere.connections()).toBe(0);
    expect(elsewhere.received()).not.toContain(key);
  });

  it('fails as the command without a head start does: unreachable, rejected key, embedded with a foreign key', async () => {
    const port = await closedPort();
    const serve = await spawnServe(tempDir());
    const cases: Array<{ argv: string[]; env: Record<string, string> }> = [
      { argv: ['whoami'], env: { STOR_URL: `ws://127.0.0.1:${port}`, STOR_API_KEY: '1-' + 'x'.repeat(64) } },
      { argv: ['whoami', '--json'], env: { STOR_URL: serve.baseUrl, STOR_API_KEY: '1-' + 'x'.repeat(64) } },
      { argv: ['privilege', 'list'], env: { STOR_HOME: serve.stateDir, STOR_API_KEY: '1-' + 'y'.repeat(64) } },
    ];
    for (const { argv, env } of cases) {
      const full = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), ...env };
      const spawned = await spawnStor(argv, { env: full });
      const inProcess = await runStor(argv, { env: full });
      expect(spawned.code).not.toBe(0);
      expect({ code: spawned.code, stderr: spawned.stderr, stdout: spawned.stdout }).toEqual(inProcess);
    }
  });
});

describe('taking a head start (src/commands/startup/head-start.ts)', () => {
  const ioWith = (env: Record<string, string>): IO => ({
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: Readable.from([]) as IO['stdin'],
    env: { HOME: process.env.HOME, STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), ...env },
    cwd: process.cwd(),
    color: { stdout: 0, stderr: 0 },
  });

  it('hands over only for the very same target and timeout; anything else is closed unused', async () => {
    const a = await spawnServe(tempDir());
    const b = await spawnServe(tempDir());
    const keyA = readFileSync(a.adminKeyFile, 'utf8').trim();
    const keyB = readFileSync(b.adminKeyFile, 'utf8').trim();
    const io = ioWith({ STOR_URL: a.baseUrl, STOR_API_KEY: keyA });

    const first = await startEarlyTarget(readCommandLine(['whoami']), io);
    const elsewhere = await resolveTarget({ url: b.baseUrl }, ioWith({ STOR_API_KEY: keyB }));
    expect(await first!.take(elsewhere, 30)).toBeUndefined();

    const second = await startEarlyTarget(readCommandLine(['whoami']), io);
    expect(await second!.take(await resolveTarget({}, io), 31)).toBeUndefined();

    const third = await startEarlyTarget(readCommandLine(['whoami', '--timeout', '31']), io);
    const taken = await third!.take(await resolveTarget({}, io), 31);
    expect(taken).toBeDefined();
    const transport = taken as RemoteTransport;
    onTestFinished(() => transport.close());
    expect(transport.target).toEqual({ kind: 'remote', url: a.baseUrl });
    expect(((await transport.call('auth.me')) as { pw_name: string }).pw_name).toBe('truenas_admin');
    // Taken once: the next command opens its own.
    expect(await third!.take(await resolveTarget({}, io), 31)).toBeUndefined();
  });

  // bin-entry.ts loads the CLI (which holds the event loop) only once loginUnderWay resolves; the
  // login must be out by then, and the wait must not last through the appliance's key check.
  const pending = (p: Promise<unknown>) =>
    Promise.race([
      p.then(
        () => 'settled',
        () => 'settled',
      ),
      new Promise((r) => setImmediate(() => r('pending'))),
    ]);
  const NO_CAP = 600_000;

  it('is under way once the login frame is written over WebSocket, with the key check still to come', async () => {
    let answerChoices: (a: StandinAnswer) => void = () => undefined;
    const choices = new Promise<StandinAnswer>((resolve) => (answerChoices = resolve));
    let answerLogin: (a: StandinAnswer) => void = () => undefined;
    const login = new Promise<StandinAnswer>((resolve) => (answerLogin = resolve));
    const appliance = await startStandinAppliance({
      'auth.mechanism_choices': { held: choices },
      'auth.login_with_api_key': { held: login },
      'auth.me': { result: { pw_name: 'truenas_admin' } },
    });
    const io = ioWith({ STOR_URL: appliance.baseUrl, STOR_API_KEY: '1-' + 'k'.repeat(64) });
    const headStart = await startEarlyTarget(readCommandLine(['whoami']), io);
    const underWay = headStart!.loginUnderWay(NO_CAP);
    // The question asked before the login is not the login: still waiting while it goes unanswered.
    await vi.waitFor(() => expect(appliance.calls).toEqual(['auth.mechanism_choices']));
    expect(await pending(underWay)).toBe('pending');
    answerChoices({ error: { code: -32601, message: 'Method does not exist' } });
    // Without the login's signal this would wait for the open, which waits for the held login.
    await underWay;
    const spec = await resolveTarget({}, io);
    // take() settles with the open itself.
    const opened = headStart!.take(spec, 30);
    expect(await pending(opened)).toBe('pending');
    await vi.waitFor(() => expect(appliance.calls).toEqual(['auth.mechanism_choices', 'auth.login_with_api_key']));
    answerLogin({ result: true });
    const transport = (await opened)!;
    onTestFinished(() => transport.close());
    expect(await transport.call('auth.me')).toEqual({ pw_name: 'truenas_admin' });
  });

  it('is under way at once over HTTP, and as soon as an open fails before any login', async () => {
    let answerMe: (a: StandinAnswer) => void = () => undefined;
    const me = new Promise<StandinAnswer>((resolve) => (answerMe = resolve));
    const appliance = await startStandinAppliance({ 'auth.me': { held: me } });
    const io = ioWith({ STOR_URL: appliance.baseUrl, STOR_API_KEY: '1-' + 'k'.repeat(64) });
    const overHttp = await startEarlyTarget(readCommandLine(['--rpc', 'http', 'whoami']), io);
    // The open's one call (auth.me) is the key's check: nothing to wait for before it.
    await overHttp!.loginUnderWay(NO_CAP);
    const spec = await resolveTarget({ rpc: 'http' }, io);
    // take() settles with the open itself.
    const opened = overHttp!.take(spec, 30);
    expect(await pending(opened)).toBe('pending');
    answerMe({ result: { pw_name: 'truenas_admin' } });
    await (await opened)!.close();

    const port = await closedPort();
    const refused = ioWith({ STOR_URL: `ws://127.0.0.1:${port}`, STOR_API_KEY: '1-' + 'k'.repeat(64) });
    const unreachable = await startEarlyTarget(readCommandLine(['whoami']), refused);
    await unreachable!.loginUnderWay(NO_CAP);
    await expect(unreachable!.take(await resolveTarget({}, refused), 30)).rejects.toThrow(
      /refused|unreachable|connect/i,
    );
  });

  it('opens nothing ahead for the embedded appliance', async () => {
    const io = ioWith({});
    const headStart = await startEarlyTarget(readCommandLine(['whoami']), io);
    await headStart!.loginUnderWay(NO_CAP);
    expect(await headStart!.take(await resolveTarget({}, io), 30)).toBeUndefined();
    expect(existsSync(io.env.STOR_HOME!)).toBe(true);
    expect(existsSync(join(io.env.STOR_HOME!, 'stor.db'))).toBe(false);
  });
});
