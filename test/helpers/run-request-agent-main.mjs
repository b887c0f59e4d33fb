// A stand-in for the session agent's server, for the first stage's tests (test/core/session/first-stage*.e2e.test.ts): a Unix
// socket at this build's agent path whose `run` requests go to the real handleRun
// (src/agent/run-request.ts, as built in dist/). These tests move to the real agent
// (src/agent/server.ts) once it lands. It prints one JSON line when it listens, then one per
// request: its argv and the kinds of message it was sent (never their contents, never the env).
import { chmodSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const dist = new URL('../../dist/', import.meta.url);
const { handleRun } = await import(new URL('agent/run-request.js', dist).href);
const { ensurePrivateDir, sessionDirFrom, socketPathIn } = await import(new URL('core/session/paths.js', dist).href);
const { apiKeyLogin } = await import(new URL('core/transport/login-strategies.js', dist).href);
const { RemoteTransport } = await import(new URL('core/transport/remote.js', dist).href);
const { runMessageReader } = await import(new URL('core/session/protocol.js', dist).href);

// The bundle's build id names the socket the built first stage looks for.
const build = readFileSync(new URL('bundle/build-id', dist), 'utf8').trim();
const dir = sessionDirFrom(process.env);
const problem = ensurePrivateDir(dir);
if (problem) throw new Error(problem);
const path = socketPathIn(dir, build);

// No pool here: each lease is a connection of its own (the real agent pools them).
const sessions = {
  open: (target, timeoutSeconds, trace) =>
    RemoteTransport.open({
      endpoint: target.endpoint,
      login: apiKeyLogin(target.apiKey),
      timeoutSeconds,
      insecure: target.insecure,
      ...(target.ca ? { ca: target.ca } : {}),
      ...(trace ? { trace } : {}),
    }),
};

const server = createServer((conn) => {
  let buffered = Buffer.alloc(0);
  const onData = (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    const nl = buffered.indexOf(10);
    if (nl === -1) return;
    conn.off('data', onData);
    const request = JSON.parse(buffered.subarray(0, nl).toString('utf8'));
    if (buffered.length > nl + 1) conn.unshift(buffered.subarray(nl + 1));
    if (request.op !== 'run') return conn.destroy();
    const sent = [];
    // Read as the first stage reads it: the bytes an `out`/`err` announces are no message.
    const read = runMessageReader(
      (m) => sent.push(m.t),
      () => undefined,
      (why) => sent.push(`bad: ${why}`),
    );
    const write = conn.write.bind(conn);
    conn.write = (data, ...rest) => {
      read(Buffer.from(data));
      return write(data, ...rest);
    };
    conn.on('close', () =>
      process.stdout.write(`${JSON.stringify({ argv: request.argv, sent: [...new Set(sent)] })}\n`),
    );
    handleRun(conn, request, sessions);
  };
  conn.on('data', onData);
});
server.listen(path, () => {
  chmodSync(path, 0o600);
  process.stdout.write(`${JSON.stringify({ listening: path, pid: process.pid })}\n`);
});
