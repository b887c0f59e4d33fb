import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/core/config/profiles.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

const keyFor = (i: number) => `${i}-${String(i).padStart(2, '0').repeat(32)}`;

/** A fleet file: 20 entries, the even ones with a key file, the odd ones with a key on standard input. */
function fleetFile(): { file: string; stdin: string } {
  const dir = tempDir('stor-fleet-');
  const lines: string[] = [];
  const stdin: string[] = [];
  for (let i = 1; i <= 20; i++) {
    const name = `nas${String(i).padStart(2, '0')}`;
    lines.push(`- name: ${name}`, `  url: ws://127.0.0.1:${7000 + i}`, `  tags: [${i <= 5 ? 'lab' : 'prod'}, eu]`);
    if (i % 2 === 0) {
      writeFileSync(join(dir, `${name}.key`), `${keyFor(i)}\n`);
      chmodSync(join(dir, `${name}.key`), 0o600);
      lines.push(`  key_file: ${name}.key`);
    } else {
      lines.push('  key_stdin: true');
      stdin.push(keyFor(i));
    }
  }
  writeFileSync(join(dir, 'fleet.yaml'), `${lines.join('\n')}\n`);
  return { file: join(dir, 'fleet.yaml'), stdin: `${stdin.join('\n')}\n` };
}

describe('stor profile import', () => {
  it('saves a 20-entry YAML fleet with keys from files and standard input; profile list shows them with tags; no key in any output', async () => {
    const env = clientEnv();
    const { file, stdin } = fleetFile();
    const imported = await runStor(['profile', 'import', file, '--json'], { env, stdin });
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const report = JSON.parse(imported.stdout);
    expect(report.imported).toHaveLength(20);
    expect(report.imported[0]).toEqual({
      name: 'nas01',
      url: 'ws://127.0.0.1:7001',
      created: true,
      tags: ['eu', 'lab'],
    });

    const doc = await new ProfileStore(env.STOR_CONFIG_DIR!).read();
    expect(doc.profiles.nas01!.apiKey).toBe(keyFor(1));
    expect(doc.profiles.nas20!.apiKey).toBe(keyFor(20));
    expect(doc.current).toBeUndefined();

    const list = await runStor(['profile', 'list', '--json'], { env });
    const rows = JSON.parse(list.stdout) as { name: string; tags: string[] }[];
    expect(rows).toHaveLength(21);
    expect(rows.find((r) => r.name === 'nas07')!.tags).toEqual(['eu', 'prod']);
    const human = await runStor(['profile', 'list'], { env, tty: true });
    expect(human.stdout).toContain('eu,lab');
    const plain = await runStor(['profile', 'import', file], { env, stdin });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('nas20\tws://127.0.0.1:7020\tfalse\teu,prod');

    const lab = await runStor(['--targets', '@lab', 'whoami', '--json', '--timeout', '5'], { env });
    expect(lab.code).toBe(3);
    expect(JSON.parse(lab.stdout).map((o: { target: string }) => o.target)).toEqual([
      'nas01',
      'nas02',
      'nas03',
      'nas04',
      'nas05',
    ]);

    for (const out of [imported, list, human, plain, lab]) {
      for (let i = 1; i <= 20; i++) expect(out.stdout + out.stderr).not.toContain(keyFor(i).split('-')[1]!);
    }
  });

  it('saves nothing when one entry is wrong, and names it', async () => {
    const env = clientEnv();
    const dir = tempDir('stor-fleet-');
    const good = { name: 'a', url: 'ws://127.0.0.1:7001', key_stdin: true };
    const cases: [unknown, string, string][] = [
      [
        [good, { name: 'b', url: 'ws://127.0.0.1:7002' }],
        'BAD_PROFILE_FILE',
        'entry 2 (b): give the key as key_file or key_stdin: true',
      ],
      [
        [good, { name: 'x,y', url: 'ws://127.0.0.1:7002', key_stdin: true }],
        'BAD_PROFILE_FILE',
        'entry 2 (x,y): name:',
      ],
      [[good, { ...good, tags: ['@prod'] }], 'BAD_PROFILE_FILE', 'entry 2 (a): tags.0:'],
      [[good, good], 'BAD_PROFILE_FILE', 'appears twice'],
      [{ name: 'a' }, 'BAD_PROFILE_FILE', 'does not hold a list'],
      [
        [good, { name: 'far', url: 'ws://nas.example.com', key_stdin: true }],
        'INSECURE_TRANSPORT',
        'refusing to send an API key in clear',
      ],
    ];
    for (const [content, code, message] of cases) {
      const file = join(dir, 'fleet.json');
      writeFileSync(file, JSON.stringify(content));
      const r = await runStor(['profile', 'import', file, '--json'], { env, stdin: `${keyFor(1)}\n${keyFor(2)}\n` });
      expect(r.code, r.stderr).toBe(2);
      const error = JSON.parse(r.stderr).error;
      expect(error.code).toBe(code);
      expect(error.message).toContain(message);
      expect(r.stderr).not.toContain(keyFor(1).split('-')[1]!);
    }
    const malformed = join(dir, 'bad.yaml');
    writeFileSync(malformed, '- name: a\n  url: [unclosed\n');
    expect(JSON.parse((await runStor(['profile', 'import', malformed, '--json'], { env })).stderr).error.code).toBe(
      'BAD_PROFILE_FILE',
    );
    const shortStdin = join(dir, 'one.json');
    writeFileSync(shortStdin, JSON.stringify([good]));
    const none = await runStor(['profile', 'import', shortStdin, '--json'], { env, stdin: '' });
    expect(JSON.parse(none.stderr).error.message).toBe(
      '1 entries take their key from standard input, which holds 0 lines',
    );
    const wrongKey = await runStor(['profile', 'import', shortStdin, '--json'], { env, stdin: 'not-a-key\n' });
    expect(JSON.parse(wrongKey.stderr).error).toMatchObject({ code: 'MALFORMED_KEY' });
    expect(wrongKey.stderr).not.toContain('not-a-key');
    expect((await new ProfileStore(env.STOR_CONFIG_DIR!).read()).profiles).toEqual({});
  });

  it("saves each entry's username, which a TrueNAS 26 key login (SCRAM) names; one that is empty or holds a control character is refused", async () => {
    const env = clientEnv();
    const file = join(tempDir('stor-fleet-'), 'fleet.yaml');
    writeFileSync(
      file,
      '- {name: old, url: ws://127.0.0.1:7001, key_stdin: true}\n' +
        '- {name: new, url: ws://127.0.0.1:7002, key_stdin: true, username: backup-op}\n',
    );
    const r = await runStor(['profile', 'import', file, '--json'], { env, stdin: `${keyFor(1)}\n${keyFor(2)}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).imported).toEqual([
      { name: 'old', url: 'ws://127.0.0.1:7001', created: true, tags: [] },
      { name: 'new', url: 'ws://127.0.0.1:7002', created: true, tags: [], username: 'backup-op' },
    ]);
    const doc = await new ProfileStore(env.STOR_CONFIG_DIR!).read();
    expect(doc.profiles.new!.username).toBe('backup-op');
    expect(doc.profiles.old).not.toHaveProperty('username');

    for (const [username, message] of [
      ['', 'entry 1 (bad): username:'],
      ['a\u0007b', 'entry 1 (bad): username:'],
      [7, 'entry 1 (bad): username:'],
    ] as const) {
      const other = clientEnv();
      writeFileSync(file, JSON.stringify([{ name: 'bad', url: 'ws://127.0.0.1:7003', key_stdin: true, username }]));
      const refused = await runStor(['profile', 'import', file, '--json'], { env: other, stdin: keyFor(3) });
      expect(refused.code, refused.stderr).toBe(2);
      expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'BAD_PROFILE_FILE' });
      expect(JSON.parse(refused.stderr).error.message).toContain(message);
      expect((await new ProfileStore(other.STOR_CONFIG_DIR!).read()).profiles).toEqual({});
    }
  });

  it('replaces a profile saved for another appliance only with --force', async () => {
    const env = clientEnv();
    await new ProfileStore(env.STOR_CONFIG_DIR!).save('a', { url: 'ws://127.0.0.1:6000', apiKey: keyFor(9) }, false);
    const file = join(tempDir('stor-fleet-'), 'fleet.json');
    writeFileSync(file, JSON.stringify([{ name: 'a', url: 'ws://127.0.0.1:7001', key_stdin: true }]));
    const refused = await runStor(['profile', 'import', file, '--json'], { env, stdin: keyFor(1) });
    expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'PROFILE_EXISTS' });
    const forced = await runStor(['profile', 'import', file, '--force', '--json'], { env, stdin: keyFor(1) });
    expect(JSON.parse(forced.stdout).imported).toEqual([
      { name: 'a', url: 'ws://127.0.0.1:7001', created: false, tags: [] },
    ]);
  });
});
