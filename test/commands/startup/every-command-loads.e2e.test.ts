/**
 * Every command loads through the built binary, whatever part of it the command needs: `--help` of
 * every verb, and end to end the commands that need the packages a start-up may load late — saved
 * profiles (conf), questions on a terminal (@inquirer/prompts), YAML (export, plan, apply, profile
 * import), multipart uploads and HTTP downloads (form-data, undici) — against `stor serve` and the
 * embedded target. In-process tests (test/commands/consistency.e2e.test.ts runs `--help` through
 * `run()`) share the test's module graph and cannot see a module the bundle fails to load.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandPaths } from '../../helpers/command-paths.js';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv, localFile } from '../../helpers/client-env.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { answerOnTerminal } from '../../helpers/terminal.js';
import { tempDir } from '../../helpers/temp-dir.js';

const paths = await commandPaths();

describe('every command loads through the built binary', () => {
  it('`stor <command> --help` exits 0 with its examples for every command, and `stor --help` lists them', async () => {
    const env = clientEnv();
    const top = await spawnStor(['--help'], { env });
    expect(top.code, top.stderr).toBe(0);
    // A few at a time: each is a whole Node start.
    for (let i = 0; i < paths.length; i += 4) {
      await Promise.all(
        paths.slice(i, i + 4).map(async (path) => {
          const r = await spawnStor([...path, '--help'], { env });
          expect(r.code, `stor ${path.join(' ')} --help: ${r.stderr}`).toBe(0);
          expect(r.stdout).toContain('Examples:');
        }),
      );
    }
    const usage = await spawnStor(['whoami', '--jsno'], { env });
    expect([usage.code, usage.stderr]).toEqual([2, expect.stringContaining('(Did you mean --json?)')]);
    const completion = await spawnStor(['completion', 'bash'], { env });
    expect(completion.code, completion.stderr).toBe(0);
    expect(completion.stdout).toContain('complete ');
  }, 600_000);

  it('a remote target: login saves a profile, export/plan/apply read and write YAML, upload and download move bytes, profile import reads an inventory', async () => {
    const server = await spawnServe(tempDir());
    const key = readFileSync(server.adminKeyFile, 'utf8').trim();
    const env = clientEnv();
    const login = await spawnStor(['login', '--url', server.baseUrl, '--api-key-stdin', '--profile', 'nas'], {
      env,
      stdin: key,
    });
    expect(login.code, login.stderr).toBe(0);
    const profiles = await spawnStor(['profile', 'list', '--json'], { env });
    expect(profiles.code, profiles.stderr).toBe(0);
    expect(JSON.parse(profiles.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'nas', url: server.baseUrl })]),
    );

    const exported = await spawnStor(['export', '--only', 'groups'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    const file = join(tempDir(), 'state.yaml');
    writeFileSync(file, `${exported.stdout}`);
    const plan = await spawnStor(['plan', '-f', file, '--json'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    const apply = await spawnStor(['apply', '-f', file, '--yes'], { env });
    expect(apply.code, apply.stderr).toBe(0);

    const bytes = Buffer.alloc(300_000, 'stor');
    const upload = await spawnStor(['upload', localFile('blob.bin', bytes), '/mnt/tank/'], { env });
    expect(upload.code, upload.stderr).toBe(0);
    const into = tempDir();
    const download = await spawnStor(['download', '/mnt/tank/blob.bin', `${into}/`], { env });
    expect(download.code, download.stderr).toBe(0);
    expect(readFileSync(join(into, 'blob.bin')).equals(bytes)).toBe(true);

    const inventory = join(tempDir(), 'fleet.yaml');
    writeFileSync(inventory, `- name: nas2\n  url: ${server.baseUrl}\n  key_file: ${server.adminKeyFile}\n`);
    const imported = await spawnStor(['profile', 'import', inventory, '--json'], { env });
    expect(imported.code, imported.stderr).toBe(0);
    await server.stop();
  }, 300_000);

  it('the embedded target: whoami answers, and a question on a terminal is asked and answered', async () => {
    const env = clientEnv();
    const who = await spawnStor(['whoami', '--json'], { env });
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ username: 'truenas_admin', target: { kind: 'embedded' } });
    expect((await spawnStor(['dataset', 'create', 'tank/asked'], { env })).code).toBe(0);
    const asked = await answerOnTerminal(['dataset', 'delete', 'tank/asked'], env, 'n');
    expect(asked.shown).toContain('(y/N)');
    const still = await spawnStor(['dataset', 'list', 'tank/asked', '--json'], { env });
    expect(still.code, still.stderr).toBe(0);
  }, 120_000);
});
