import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SAFETY_MS, startTestServer, type TestServer } from '../../../helpers/server.js';
import { tempDir } from '../../../helpers/temp-dir.js';

/*
 * A user with a shell on the host swaps a directory inside the pool for a
 * symlink to an outside directory, back and forth, while a walk that changes things runs. The
 * walk must leave everything outside the pool as it was. The swap loop runs in the test process
 * and stops by itself: when the walk has answered, after SWAPS rounds, or after SAFETY_MS.
 */
const DIRS = 12;
const FILES_PER_DIR = 150;
const SWAP_DIRS = 6;
const SWAPS = 20_000;

interface Outside {
  root: string;
  /** Every outside path with its mode and (for files) content. */
  before: Map<string, { mode: number; content: string | null }>;
}

/** An outside tree: files 0600 with known contents and a directory 0700, as in the report. */
function makeOutside(): Outside {
  const root = tempDir('stor-outside-');
  mkdirSync(join(root, 'private'));
  for (let i = 0; i < 20; i++) writeFileSync(join(root, `secret${i}`), `outside secret ${i}\n`, { mode: 0o600 });
  writeFileSync(join(root, 'private/key'), 'outside key\n', { mode: 0o600 });
  chmodSync(join(root, 'private'), 0o700);
  chmodSync(root, 0o700);
  return { root, before: snapshotOf(root) };
}

function snapshotOf(root: string): Map<string, { mode: number; content: string | null }> {
  const seen = new Map<string, { mode: number; content: string | null }>();
  const visit = (p: string) => {
    const st = lstatSync(p);
    seen.set(p, { mode: st.mode & 0o7777, content: st.isFile() ? readFileSync(p, 'utf8') : null });
    if (st.isDirectory()) for (const n of readdirSync(p)) visit(join(p, n));
  };
  visit(root);
  return seen;
}

/** A dataset with a tree large enough for the walk to take a while, and the directories that get swapped. */
async function makeVictim(server: TestServer, name: string): Promise<string> {
  const t = server.testAppliance;
  await t.call(t.admin, 'pool.dataset.create', { name: `tank/${name}` });
  const root = join(server.stateDir, 'mnt/tank', name);
  for (let d = 0; d < DIRS; d++) {
    mkdirSync(join(root, `d${d}`));
    for (let f = 0; f < FILES_PER_DIR; f++) writeFileSync(join(root, `d${d}`, `f${f}`), 'inside\n');
  }
  for (let s = 0; s < SWAP_DIRS; s++) {
    mkdirSync(join(root, `swap${s}`));
    writeFileSync(join(root, `swap${s}`, 'inside'), 'inside\n');
  }
  return root;
}

/**
 * Until `work` settles (at most SWAPS rounds and SAFETY_MS): each `swapN` in `root` is moved aside
 * (into the pool, outside the dataset) and a symlink to the outside tree put in its place, or put
 * back. Returns how many swaps were made, so the test can show the race was really run.
 */
async function swapWhile(work: Promise<unknown>, root: string, park: string, outside: string): Promise<number> {
  let settled = false;
  void work.then(
    () => (settled = true),
    () => (settled = true),
  );
  mkdirSync(park, { recursive: true });
  let swaps = 0;
  const deadline = Date.now() + SAFETY_MS;
  // Each round flips one directory: in place → symlink, or symlink → back in place; so about
  // half the swapped directories are symlinks at any moment.
  for (let i = 0; i < SWAPS && !settled && Date.now() < deadline; i++) {
    const s = i % SWAP_DIRS;
    const at = join(root, `swap${s}`);
    const aside = join(park, `swap${s}`);
    try {
      if (lstatSync(at).isSymbolicLink()) {
        unlinkSync(at);
        renameSync(aside, at);
      } else {
        renameSync(at, aside);
        symlinkSync(outside, at);
        swaps++;
      }
    } catch {
      // The walk got there first (removed or moved it): nothing to flip.
    }
    await sleep(1);
  }
  return swaps;
}

function expectOutsideUntouched(outside: Outside): void {
  expect(snapshotOf(outside.root)).toEqual(outside.before);
}

describe('a directory swapped for a symlink mid-walk leaves everything outside the pool untouched', () => {
  it('pool.dataset.delete -r: no outside file is removed', async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    const outside = makeOutside();
    const root = await makeVictim(server, 'victim');
    const work = t.call(t.admin, 'pool.dataset.delete', 'tank/victim', { recursive: true });
    const swaps = await swapWhile(work, root, join(server.stateDir, 'mnt/tank/parked'), outside.root);
    await work.catch(() => undefined);
    expect(swaps).toBeGreaterThan(0);
    expectOutsideUntouched(outside);
  });

  it('filesystem.setperm -R and filesystem.chown -R: no outside mode is changed', async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    const outside = makeOutside();
    const root = await makeVictim(server, 'victim');
    for (const [method, args] of [
      ['filesystem.setperm', { path: '/mnt/tank/victim', mode: '777', options: { recursive: true } }],
      ['filesystem.chown', { path: '/mnt/tank/victim', uid: 1000, options: { recursive: true } }],
    ] as const) {
      const work = t.call<number>(t.admin, method, args).then((id) => t.appliance.jobs.wait(t.admin, id));
      const swaps = await swapWhile(work, root, join(server.stateDir, 'mnt/tank/parked'), outside.root);
      await work.catch(() => undefined);
      expect(swaps).toBeGreaterThan(0);
      expectOutsideUntouched(outside);
    }
  });

  it('pool.snapshot.create and rollback: nothing outside is copied in or changed', async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    const outside = makeOutside();
    const root = await makeVictim(server, 'victim');
    const parked = join(server.stateDir, 'mnt/tank/parked');
    // Taken quietly, so that the rollback below has a snapshot whatever the raced one does.
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/victim', name: 'quiet' });
    const taking = t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/victim', name: 'raced' });
    expect(await swapWhile(taking, root, parked, outside.root)).toBeGreaterThan(0);
    await taking.catch(() => undefined);
    // No outside secret found its way into a snapshot's copy.
    const copied = [...snapshotOf(join(server.stateDir, 'snapshots')).values()].map((e) => e.content ?? '');
    expect(copied.filter((c) => c.startsWith('outside'))).toEqual([]);

    // Make the rollback have work to do in every swapped directory.
    for (let s = 0; s < SWAP_DIRS; s++) {
      for (const at of [join(root, `swap${s}`), join(parked, `swap${s}`)]) rmSync(at, { recursive: true, force: true });
      mkdirSync(join(root, `swap${s}`));
      writeFileSync(join(root, `swap${s}`, 'later'), 'later\n');
    }
    const rolling = t.call(t.admin, 'pool.snapshot.rollback', 'tank/victim@quiet', { recursive: true });
    expect(await swapWhile(rolling, root, parked, outside.root)).toBeGreaterThan(0);
    await rolling.catch(() => undefined);
    expectOutsideUntouched(outside);
    expect(statSync(root).isDirectory()).toBe(true);
  });
});

describe('a dataset mountpoint swapped for a symlink while its children go leaves everything outside the pool untouched', () => {
  // Attack on point 3's fix: the walks hold descriptors, but a child dataset's own directory was
  // removed by its path after its tree was emptied; with the parent's directory swapped for a
  // symlink at that moment, that rmdir removed an empty directory of the same name outside.
  it('pool.dataset.delete -r of a dataset with many children: no outside directory is removed', async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    const CHILDREN = 40;
    const outside = tempDir('stor-outside-');
    for (let c = 0; c < CHILDREN; c++) mkdirSync(join(outside, `c${c}`));
    const before = readdirSync(outside).sort();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/p' });
    for (let c = 0; c < CHILDREN; c++) await t.call(t.admin, 'pool.dataset.create', { name: `tank/p/c${c}` });
    const root = join(server.stateDir, 'mnt/tank/p');
    const aside = join(server.stateDir, 'mnt/tank/p-parked');
    // Rounds until the tree is gone (a raced round may refuse and keep what is left): bounded by
    // count and by SAFETY_MS; each round flips the parent back and forth while the delete runs.
    const deadline = Date.now() + SAFETY_MS;
    let swaps = 0;
    for (let round = 0; round < 20 && Date.now() < deadline; round++) {
      const exists = await t.call(t.admin, 'pool.dataset.query', [['id', '=', 'tank/p']]);
      if ((exists as unknown[]).length === 0) break;
      let settled = false;
      const work = t.call(t.admin, 'pool.dataset.delete', 'tank/p', { recursive: true }).then(
        () => (settled = true),
        () => (settled = true),
      );
      for (let i = 0; i < 2000 && !settled && Date.now() < deadline; i++) {
        try {
          if (lstatSync(root).isSymbolicLink()) {
            unlinkSync(root);
            renameSync(aside, root);
          } else {
            renameSync(root, aside);
            symlinkSync(outside, root);
            swaps++;
          }
        } catch {
          // The delete got there first: nothing to flip.
        }
        await sleep(0);
      }
      await work;
      // Put the parent back in place for the next round.
      if (lstatSync(root, { throwIfNoEntry: false })?.isSymbolicLink()) {
        unlinkSync(root);
        renameSync(aside, root);
      }
    }
    expect(swaps).toBeGreaterThan(0);
    expect(readdirSync(outside).sort()).toEqual(before);
  });
});
