import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { SAFETY_MS } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { clientEnv } from '../../helpers/client-env.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A client machine: its own (unused) embedded state and its own profiles. */

/** `stor call` as the server's administrator; returns the parsed JSON result. */
async function adminCall(server: ServeProcess, method: string, ...args: unknown[]): Promise<any> {
  const env = {
    ...clientEnv(),
    STOR_URL: server.baseUrl,
    STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
  };
  const r = await spawnStor(['call', method, ...args.map((a) => JSON.stringify(a))], { env });
  if (r.code !== 0) throw new Error(`stor call ${method} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A random local file of `size` bytes. */
function localFile(name: string, size: number): { path: string; bytes: Buffer } {
  const path = join(tempDir('stor-e2e-files-'), name);
  const bytes = randomBytes(size);
  writeFileSync(path, bytes);
  return { path, bytes };
}

describe('stor upload, end to end with the built binary', () => {
  it('acceptance: `stor upload README.md /mnt/tank/docs/ --mode 0644` on a fresh embedded state, then `stor stat`', async () => {
    expect(existsSync(join(process.cwd(), 'README.md'))).toBe(true);
    const env = clientEnv();
    const up = await spawnStor(['upload', 'README.md', '/mnt/tank/docs/', '--mode', '0644'], { env });
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    const size = statSync(join(process.cwd(), 'README.md')).size;
    expect(up.stdout).toBe(`README.md\t/mnt/tank/docs/README.md\tdone\t${size}\t0644\ttruenas_admin\t\n`);

    const st = await spawnStor(['stat', '/mnt/tank/docs/README.md', '--json'], { env });
    expect(st.code).toBe(0);
    expect(JSON.parse(st.stdout)).toMatchObject({
      path: '/mnt/tank/docs/README.md',
      type: 'FILE',
      size,
      mode: '0644',
      st_mode: 0o100644,
      user: 'truenas_admin',
      uid: 950,
    });
    expect(readFileSync(join(env.STOR_HOME!, 'mnt/tank/docs/README.md'))).toEqual(
      readFileSync(join(process.cwd(), 'README.md')),
    );

    const table = await spawnStor(['stat', '/mnt/tank/docs/README.md'], { env });
    expect(table.stdout).toContain('mode\t0644\n');
    expect(table.stdout).toContain('owner\ttruenas_admin\n');
  });

  it('uploads 5 MiB byte for byte to `stor serve` after `stor login`, over ws and with --rpc http', async () => {
    const server = await spawnServe(tempDir('stor-serve-state-'));
    const env = clientEnv();
    const login = await spawnStor(['login', '--url', server.baseUrl, '--api-key-stdin'], {
      env,
      stdin: readFileSync(server.adminKeyFile, 'utf8'),
    });
    expect(login.code).toBe(0);

    const { path, bytes } = localFile('random-5m.bin', 5 * 1024 * 1024 + 17);
    const ws = await spawnStor(['upload', path, '/mnt/tank/e2e/', '--json'], { env });
    expect(ws.stderr).toBe('');
    expect(ws.code).toBe(0);
    expect(JSON.parse(ws.stdout)).toEqual({
      files: [
        {
          source: path,
          target: '/mnt/tank/e2e/random-5m.bin',
          outcome: 'done',
          bytes: bytes.length,
          size: bytes.length,
          mode: '0644',
          owner: 'truenas_admin',
          job_id: expect.any(Number),
          error: null,
        },
      ],
      summary: { files: 1, done: 1, failed: 0, skipped: 0, not_attempted: 0, bytes_sent: bytes.length },
      target: { kind: 'remote', url: server.baseUrl, profile: expect.any(String) },
    });
    expect(sha256(readFileSync(join(server.stateDir, 'mnt/tank/e2e/random-5m.bin')))).toBe(sha256(bytes));

    const http = await spawnStor(['--rpc', 'http', 'upload', path, '/mnt/tank/e2e/over-http.bin', '--mode', '0o600'], {
      env,
    });
    expect(http.code).toBe(0);
    const landed = join(server.stateDir, 'mnt/tank/e2e/over-http.bin');
    expect(sha256(readFileSync(landed))).toBe(sha256(bytes));
    expect(statSync(landed).mode & 0o7777).toBe(0o600);
    expect(readdirSync(join(server.stateDir, 'mnt/tank/e2e')).sort()).toEqual(['over-http.bin', 'random-5m.bin']);

    const ls = await spawnStor(['ls', '/mnt/tank/e2e', '--json'], { env });
    expect(JSON.parse(ls.stdout).map((e: { name: string; size: number }) => [e.name, e.size])).toEqual([
      ['over-http.bin', bytes.length],
      ['random-5m.bin', bytes.length],
    ]);
    expect(await server.stop()).toBe(0);
  });

  it('CURRENT GATE (25.10.1 behaviour, not the declared intent): a non-admin with filesystem roles gets exit 5; under --upload-gate role the same key uploads', async () => {
    const state = tempDir('stor-serve-state-');
    const server = await spawnServe(state);
    // The user is made over the wire, as an operator would, with `stor call` as the administrator.
    const groupId = await adminCall(server, 'group.create', { name: 'e2eops', smb: false });
    const group = await adminCall(server, 'group.query', [['id', '=', groupId]], { get: true });
    await adminCall(server, 'user.create', {
      username: 'eve',
      full_name: 'Eve',
      group: groupId,
      password_disabled: true,
      smb: false,
    });
    await adminCall(server, 'privilege.create', {
      name: 'e2e filesystem',
      local_groups: [group.gid],
      roles: ['FILESYSTEM_FULL_CONTROL', 'DATASET_WRITE', 'FILESYSTEM_DATA_WRITE'],
      web_shell: false,
    });
    const { key } = await adminCall(server, 'api_key.create', { name: 'eve-key', username: 'eve' });
    expect(key).toMatch(/^\d+-[A-Za-z0-9]{64}$/);

    const { path, bytes } = localFile('eve.bin', 4096);
    const env = { ...clientEnv(), STOR_URL: server.baseUrl, STOR_API_KEY: key };
    const refused = await spawnStor(['upload', path, '/mnt/tank/eve/'], { env });
    expect(refused.code).toBe(5);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('403: Forbidden');
    expect(refused.stderr).toContain('SYS_ADMIN');
    expect(refused.stderr).toContain('builtin_administrators');
    expect(refused.stderr).toContain('--upload-gate role');
    expect(refused.stderr).not.toContain(key.split('-')[1]);
    expect(existsSync(join(state, 'mnt/tank/eve'))).toBe(false);
    expect(await server.stop()).toBe(0);

    // The declared intent: FILESYSTEM_DATA_WRITE suffices. Same state, same key.
    const roleGate = await spawnServe(state, ['--upload-gate', 'role']);
    const allowed = await spawnStor(['upload', path, '/mnt/tank/eve/', '--json'], {
      env: { ...env, STOR_URL: roleGate.baseUrl },
    });
    expect(allowed.stderr).toBe('');
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).files[0]).toMatchObject({
      target: '/mnt/tank/eve/eve.bin',
      size: 4096,
      owner: 'eve',
    });
    expect(sha256(readFileSync(join(state, 'mnt/tank/eve/eve.bin')))).toBe(sha256(bytes));
    expect(await roleGate.stop()).toBe(0);
    expect(roleGate.stderr()).toContain('upload gate role');
  });

  it('`stor serve` keeps running after uploads refused once their job had started', async () => {
    const server = await spawnServe(tempDir('stor-serve-state-'));
    const key = readFileSync(server.adminKeyFile, 'utf8').trim();
    const B = 'e2e-boundary';
    const part = (name: string, body: string, filename?: string) =>
      `--${B}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${body}\r\n`;
    const data = part('data', JSON.stringify({ method: 'filesystem.put', params: ['/mnt/tank/x.bin', {}] }));
    const bodies: [string, number][] = [
      [data + part('file', 'x', 'x') + part('x', 'y') + `--${B}--\r\n`, 405],
      [data + Array.from({ length: 6 }, (_, i) => part('file', `f${i}`, `f${i}`)).join('') + `--${B}--\r\n`, 405],
      [data + `--${B}\r\nContent-Disposition: form-data; name="file"; filename="t"\r\n\r\n` + 'z'.repeat(100_000), 400],
    ];
    for (const [body, status] of bodies) {
      const res = await fetch(`${server.url}/_upload/`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${B}`, authorization: `Bearer ${key}` },
        body,
        signal: AbortSignal.timeout(SAFETY_MS),
      });
      expect(res.status).toBe(status);
      await res.text();
      const ping = await fetch(`${server.url}/api/current`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'core.ping', params: [] }),
        signal: AbortSignal.timeout(SAFETY_MS),
      });
      expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 'pong' });
    }
    expect(server.child.exitCode).toBeNull();
    expect(existsSync(join(server.stateDir, 'mnt/tank/x.bin'))).toBe(false);
    expect(await server.stop()).toBe(0);
  });
});
