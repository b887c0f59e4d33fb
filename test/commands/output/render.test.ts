import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { runStor, type RunResult } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

const ESC = '\x1b[';
const NAMES = [
  '漢字のファイル名.txt',
  '📁 emoji 🎉.log',
  'a plain name.txt',
  'a very long file name with spaces that goes on and on until it cannot fit.bin',
];

function lines(out: string): string[] {
  return out.replace(/\n$/, '').split('\n');
}

function expectFits(r: RunResult, width: number): void {
  expect(r.code).toBe(0);
  for (const line of lines(r.stdout)) expect(stringWidth(line), JSON.stringify(line)).toBeLessThanOrEqual(width);
}

/** A fresh embedded state with a dataset holding files with CJK, emoji and long names. */
async function setup() {
  const home = tempDir('stor-home-');
  const local = tempDir('stor-local-');
  const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir('stor-config-') };
  const stor = (argv: string[], options: { columns?: number; tty?: boolean; color?: 0 | 1 } = {}) =>
    runStor(argv, {
      env,
      tty: options.tty ?? true,
      color: options.color ?? 0,
      ...(options.columns ? { columns: options.columns } : {}),
    });
  expect(
    (
      await stor([
        'dataset',
        'create',
        'tank/docs',
        '--comments',
        'shared documents of the team, kept for audits and the yearly review',
      ])
    ).code,
  ).toBe(0);
  const paths = NAMES.map((name, i) => {
    const p = join(local, name);
    writeFileSync(p, 'x'.repeat(1000 * (i + 1)));
    return p;
  });
  return { home, local, paths, stor };
}

describe('human output fits the terminal (80 and 200 columns)', () => {
  for (const width of [80, 200]) {
    it(`whoami at ${width}: the fields first, 141 roles flowing within the width`, async () => {
      const { stor } = await setup();
      const r = await stor(['whoami', '--roles'], { columns: width });
      expectFits(r, width);
      const out = lines(r.stdout);
      expect(out[0]).toMatch(/^username:\s+truenas_admin$/);
      // Every field is on screen before the role list starts.
      const rolesAt = out.findIndex((l) => l.startsWith('roles:'));
      // Nine fields, the target's release among them.
      expect(rolesAt).toBe(9);
      expect(out[rolesAt]).toMatch(/^roles:\s+141: ACCOUNT_READ, ACCOUNT_WRITE, /);
      // Wrapped as text, several roles a line, continuation lines under the values.
      const continuation = out.slice(rolesAt + 1);
      expect(continuation.length).toBeLessThan(width === 80 ? 60 : 25);
      for (const l of continuation) expect(l).toMatch(/^ {21}[A-Z_]+(, [A-Z_]+)*,?$/);
      expect(r.stdout).not.toContain(ESC);
    });

    it(`privilege list and show at ${width}`, async () => {
      const { stor } = await setup();
      const list = await stor(['privilege', 'list'], { columns: width });
      // At 80 the line of identifiers alone (truenas_readonly_administrators) passes the width: never cut (docs/COMMANDS.md "Output").
      if (width === 200) expectFits(list, width);
      expect(list.stdout).not.toContain('…');
      // At 80 the minor WEB SHELL goes so that no group name is cut.
      expect(lines(list.stdout)[0]).toMatch(
        width === 80 ? /^ID\s+NAME\s+GROUPS\s+ROLES\s+HEALTH$/ : /^ID\s+NAME\s+GROUPS\s+ROLES\s+WEB SHELL\s+HEALTH$/,
      );
      expect(list.stdout).toContain('builtin_administrators');
      expect(lines(list.stdout)).toHaveLength(4);
      if (width === 200)
        expect(list.stdout).toMatch(/^ 1 {2}Local Administrator\s+builtin_administrators\s+FULL_ADMIN\s+true\s+ok$/m);

      const show = await stor(['privilege', 'show', '1'], { columns: width });
      expectFits(show, width);
      const out = lines(show.stdout);
      expect(out.slice(0, 3).map((l) => l.split(':')[0])).toEqual(['privilege', 'built-in', 'health']);
      expect(out[2]).toMatch(/^health:\s+ok$/);
      expect(out.findIndex((l) => l.startsWith('effective roles:'))).toBeGreaterThan(
        out.findIndex((l) => l.startsWith('listed roles:')),
      );
    });

    it(`ls, dataset list and a multi-file upload at ${width}: CJK and emoji names aligned`, async () => {
      const { paths, stor } = await setup();
      const up = await stor(['upload', ...paths, '/mnt/tank/docs/'], { columns: width });
      // Paths are never shortened: a path with spaces wraps at them; the line grows past 80 rather than cut one.
      expect(up.stdout).not.toContain('…');
      expect(lines(up.stdout)[0]).toMatch(/^SOURCE\s+TARGET\s+OUTCOME\s+SIZE\s+MODE\s+OWNER$/);
      const done = lines(up.stdout).filter((l) => / done /.test(l));
      expect(done).toHaveLength(NAMES.length);
      for (const l of done) expect(l).toMatch(/done {2,}(\d+ B|\d+\.\d KiB) {2}-rw-r--r-- 0644 {2}truenas_admin$/);
      // Several files go at once: one total line, redrawn in place, each draw within the width.
      for (const draw of up.stderr.split('\r\x1b[2K').filter((d) => d !== '')) {
        expect(stringWidth(draw.replace(/\n$/, ''))).toBeLessThan(width);
        expect(draw.replace(/\n$/, '')).not.toContain('\n');
      }
      expect(up.stderr).toMatch(/uploaded 4\/4 files/);
      expect(up.stderr).toMatch(/ETA \d\d:\d\d/);
      expect(up.stderr.split('\n')).toHaveLength(2);

      const ls = await stor(['ls', '/mnt/tank/docs'], { columns: width });
      expectFits(ls, width);
      const rows = lines(ls.stdout);
      expect(rows[0]).toMatch(/^MODE\s+OWNER\s+GROUP\s+SIZE\s+NAME$/);
      // The name column starts at the same display column on every row, wide characters or not.
      const nameAt = stringWidth(rows[0]!.slice(0, rows[0]!.indexOf('NAME')));
      for (const name of ['漢字のファイル名.txt', '📁 emoji 🎉.log', 'a plain name.txt']) {
        const row = rows.find((l) => l.endsWith(name))!;
        expect(row, name).toBeDefined();
        expect(stringWidth(row.slice(0, row.indexOf(name)))).toBe(nameAt);
        expect(row).toMatch(/^-rw-r--r-- 0644 {2}truenas_admin {2}truenas_admin {2}/);
      }
      // The long name wraps at word boundaries at 80 and stays whole at 200.
      if (width === 80)
        expect(rows.some((l) => /^\s+with spaces/.test(l) || /^\s+\S.*cannot fit\.bin$/.test(l))).toBe(true);
      else expect(rows.some((l) => l.endsWith(NAMES[3]!))).toBe(true);

      const ds = await stor(['dataset', 'list'], { columns: width });
      expectFits(ds, width);
      expect(lines(ds.stdout)[0]).toMatch(/^NAME\s+USED\s+AVAIL\s+COMPRESSION\s+MOUNTPOINT\s+COMMENTS$/);
      expect(ds.stdout).toMatch(
        /^tank\/docs\s+\d+(\.\d)? KiB\s+\d+\.\d GiB\s+LZ4\s+\/mnt\/tank\/docs\s+shared documents/m,
      );
    });
  }
});

describe('piped output is the data', () => {
  it('tab-separated, exact bytes, no escapes and no padding', async () => {
    const { paths, stor } = await setup();
    await stor(['upload', ...paths, '/mnt/tank/docs/']);
    for (const argv of [['ls', '/mnt/tank/docs'], ['dataset', 'list'], ['privilege', 'list'], ['whoami']]) {
      const r = await stor(argv, { tty: false, color: 1 });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain(ESC);
      for (const l of lines(r.stdout)) {
        expect(l).not.toMatch(/ {2}|\t /);
        expect(l).toContain('\t');
      }
    }
    const ls = await stor(['ls', '/mnt/tank/docs'], { tty: false });
    expect(lines(ls.stdout)).toContain('0644\ttruenas_admin\ttruenas_admin\t1000\t漢字のファイル名.txt');
  });
});

describe('colour carries meaning', () => {
  it('LOCKOUT in red, only when the colour level allows it', async () => {
    const home = tempDir('stor-home-');
    // PRIVILEGE_WRITE includes itself: on the 25.10.1 model it locks its users out.
    Appliance.open({ stateDir: home, settings: { roleExpansion: 'truenas-25.10.1' } }).close();
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir('stor-config-') };
    const create = await runStor(['privilege', 'create', 'pw', '--roles', 'PRIVILEGE_WRITE', '--force'], { env });
    expect(create.code).toBe(0);
    const plain = await runStor(['privilege', 'list'], { env, tty: true, color: 0, columns: 120 });
    const coloured = await runStor(['privilege', 'list'], { env, tty: true, color: 1, columns: 120 });
    expect(plain.stdout).not.toContain(ESC);
    expect(plain.stdout).toMatch(/pw .*LOCKOUT$/m);
    expect(lines(coloured.stdout).find((l) => l.includes(' pw '))).toContain('\x1b[31m\x1b[1mself-including, LOCKOUT');
    // ok is green; the header bold.
    expect(coloured.stdout).toContain('\x1b[32mok\x1b[39m');
    expect(coloured.stdout).toContain('\x1b[1mID\x1b[22m');
  });
});
