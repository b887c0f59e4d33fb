// What another user tries against the session agent's directory (test/agent/other-user.e2e.test.ts):
// run as that user, given {runtime, dir, socket, own} as JSON in argv (own: a file of its own,
// outside the directory). Prints one JSON line: what it could see of the way there (so that a
// refusal is known to come from the agent's directory or socket, not from a parent), and what
// each attempt gave: 'ok' (or 'connected'), or the error code.
import { lstatSync, mkdirSync, readdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { basename, join } from 'node:path';

const { runtime, dir, socket, own } = JSON.parse(process.argv[2]);

const attempt = (fn) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return err.code ?? err.message;
  }
};
const seen = (path) => {
  try {
    const st = lstatSync(path);
    return { uid: st.uid, mode: st.mode & 0o777 };
  } catch (err) {
    return err.code ?? err.message;
  }
};

const connected = await new Promise((resolve) => {
  const s = connect(socket);
  s.on('connect', () => {
    s.destroy();
    resolve('connected');
  });
  s.on('error', (err) => resolve(err.code ?? err.message));
});

let listed;
try {
  listed = readdirSync(runtime).includes(basename(dir));
} catch (err) {
  listed = err.code;
}

process.stdout.write(
  `${JSON.stringify({
    runtimeLists: listed,
    dir: seen(dir),
    socket: seen(socket),
    connect: connected,
    create: attempt(() => writeFileSync(join(dir, 'planted'), 'x', { flag: 'wx' })),
    mkdir: attempt(() => mkdirSync(join(dir, 'planted.d'))),
    symlink: attempt(() => symlinkSync(own, join(dir, 'planted.link'))),
    replace: attempt(() => renameSync(own, socket)),
    unlink: attempt(() => unlinkSync(socket)),
  })}\n`,
);
