import { openDatabase } from '../../../src/core/store/sqlite.js';
import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { SAFETY_MS, loggedInWs, startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

const transportModule = fileURLToPath(new URL('../../../dist/core/transport/embedded.js', import.meta.url));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Writer {
  /** Resolves once the process has opened the state and waits for the go. */
  ready: Promise<void>;
  go(): void;
  done: Promise<{ code: number | null; stderr: string; stdout: string }>;
}

/**
 * A separate process on the built embedded transport that sends `privilege.update(id, patch(i))`
 * for i = 0..count-1, each awaited, after a "go" on stdin (so both writers start together).
 */
function writer(home: string, id: number, count: number, patch: string): Writer {
  const script = `
    const { EmbeddedTransport } = await import(${JSON.stringify(transportModule)});
    const t = await EmbeddedTransport.open({ stateDir: process.env.STOR_HOME, timeoutSeconds: 30 });
    const patch = ${patch};
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    for (let i = 0; i < ${count}; i++) await t.call('privilege.update', [${id}, patch(i)]);
    await t.close();
    process.stdout.write('done\\n');
    process.stdin.destroy();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_SESSION: 'off', ...EMBEDDED_MEANT, STOR_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    if (stdout.includes('ready\n')) markReady();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, stdout }));
  });
  // A writer that dies before it is ready fails the test instead of hanging it.
  void done.then((r) => (r.stdout.includes('ready') ? undefined : markReady()));
  return { ready, go: () => child.stdin.write('go\n'), done };
}

describe('concurrent writers', () => {
  it('two processes updating the same privilege 100 times each lose no update and leave an intact database', async () => {
    const home = tempDir('stor-rel-writers-');
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir('stor-rel-config-') };
    const A = ['READONLY_ADMIN'];
    const B = ['SHARING_ADMIN', 'DATASET_READ'];
    const created = await spawnStor(
      ['call', 'privilege.create', JSON.stringify({ name: 'contended', roles: A, web_shell: true, local_groups: [] })],
      { env },
    );
    expect(created.stderr).toBe('');
    const id = JSON.parse(created.stdout).id as number;

    // Process A only touches roles, process B only web_shell; each alternates, starting from the initial value.
    const rolesWriter = writer(
      home,
      id,
      100,
      `(i) => ({ roles: i % 2 === 0 ? ${JSON.stringify(A)} : ${JSON.stringify(B)} })`,
    );
    const shellWriter = writer(home, id, 100, '(i) => ({ web_shell: i % 2 === 0 })');
    await Promise.all([rolesWriter.ready, shellWriter.ready]);
    rolesWriter.go();
    shellWriter.go();
    const results = await Promise.all([rolesWriter.done, shellWriter.done]);
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('ready\ndone\n');
    }

    // Each writer's last value is there: update 99 of A set roles B, update 99 of B set web_shell false.
    const after = await spawnStor(
      [
        'call',
        'privilege.query',
        JSON.stringify([['id', '=', id]]),
        '{"get":true,"select":["name","roles","web_shell"]}',
      ],
      { env },
    );
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual({ name: 'contended', roles: B, web_shell: false });

    const db = openDatabase(join(home, 'stor.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('50 concurrent uploads of distinct files all land byte for byte', async () => {
    const server = await startTestServer();
    const files = Array.from({ length: 50 }, (_, i) => ({
      path: `/mnt/tank/many/${i % 5}/file-${i}.bin`,
      bytes: randomBytes(randomInt(64 * 1024, 256 * 1024 + 1)),
    }));
    const boundary = 'concurrency-boundary-3e9f';
    const bodyOf = (f: (typeof files)[number]) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${JSON.stringify({ method: 'filesystem.put', params: [f.path, { mode: 420 }] })}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        f.bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);

    const answers = await Promise.all(
      files.map(async (f) => {
        const res = await fetch(`${server.url}/_upload/`, {
          method: 'POST',
          headers: {
            'content-type': `multipart/form-data; boundary=${boundary}`,
            authorization: `Bearer ${server.adminKey}`,
          },
          body: bodyOf(f),
          signal: AbortSignal.timeout(SAFETY_MS * 2),
        });
        return { status: res.status, text: await res.text() };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(files.map(() => 200));
    const jobIds = answers.map((a) => (JSON.parse(a.text) as { job_id: number }).job_id);
    expect(new Set(jobIds).size).toBe(50);

    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    await client.result('core.set_options', [{ legacy_jobs: false }]);
    // Waits for each job to end; at most 10 waits in flight on the one connection.
    for (let i = 0; i < jobIds.length; i += 10) {
      const waits = await Promise.all(jobIds.slice(i, i + 10).map((id) => client.call('core.job_wait', [id])));
      expect(waits.map((w) => w.error ?? w.result)).toEqual(waits.map(() => true));
    }
    const jobs = await client.result<{ id: number; state: string; arguments: unknown[] }[]>('core.get_jobs', [
      [['method', '=', 'filesystem.put']],
    ]);
    expect(jobs.map((j) => j.state)).toEqual(files.map(() => 'SUCCESS'));

    for (const f of files) {
      const landed = readFileSync(join(server.stateDir, f.path.replace(/^\/mnt\//, 'mnt/')));
      expect(landed.length, f.path).toBe(f.bytes.length);
      expect(sha256(landed), f.path).toBe(sha256(f.bytes));
    }
    const tree = (readdirSync(join(server.stateDir, 'mnt/tank'), { recursive: true }) as string[]).map(String);
    expect(tree.filter((p) => p.includes('.stor-put-'))).toEqual([]);
    expect(tree.filter((p) => p.endsWith('.bin')).sort()).toEqual(
      files.map((f) => f.path.slice('/mnt/tank/'.length)).sort(),
    );
  });
});
