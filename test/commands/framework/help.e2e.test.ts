import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { spawnStor } from '../../helpers/bin.js';
import { readFileSync } from 'node:fs';
import { tempDir } from '../../helpers/temp-dir.js';

const version = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('help and discovery', () => {
  it('bare `stor` prints the command list on stdout and exits 0', async () => {
    const r = await runStor([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Usage: stor');
    for (const word of ['whoami', 'privilege', 'dataset', 'upload', 'completion', 'help'])
      expect(r.stdout).toMatch(new RegExp(`^  ${word}\\b`, 'm'));
  });

  it('a noun alone shows its verbs on stdout; an unknown verb exits 2 with a suggestion', async () => {
    const noun = await runStor(['privilege']);
    expect(noun.code).toBe(0);
    expect(noun.stdout).toContain('Usage: stor privilege');
    expect(noun.stdout).toMatch(/^  fix \[options\] \[privilege\]/m);
    const wrong = await runStor(['privilege', 'fixx']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("unknown command 'fixx'");
    expect(wrong.stderr).toContain('Did you mean fix?');
  });

  it('a sub-noun is listed under its noun and lists its verbs; an unknown verb under it exits 2 as any other', async () => {
    const share = await runStor(['share', '--help']);
    expect(share.code).toBe(0);
    expect(share.stdout).toMatch(/^  nfs\b.*NFS/m);
    expect(share.stdout).toMatch(/^  smb\b.*SMB/m);
    expect(share.stdout).not.toContain('create-');
    for (const argv of [
      ['share', 'nfs', '--help'],
      ['share', 'nfs'],
      ['help', 'share', 'nfs'],
    ]) {
      const nfs = await runStor(argv);
      expect({ argv, code: nfs.code }).toEqual({ argv, code: 0 });
      expect(nfs.stdout).toContain('Usage: stor share nfs');
      expect(nfs.stdout).toMatch(/^  create \[options\] <path>/m);
    }
    const verb = await runStor(['share', 'smb', 'create', '--help']);
    expect(verb.stdout).toContain('Usage: stor share smb create [options] <name> <path>');
    expect(verb.stdout).toContain('$ stor share smb create docs /mnt/tank/docs');
    const wrong = await runStor(['share', 'nfs', 'frob']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe("stor: unknown command 'frob'\nhint: see `stor share nfs --help`\n");
    const near = await runStor(['share', 'smb', 'creat']);
    expect(near.code).toBe(2);
    expect(near.stderr).toContain('(Did you mean create?)');
  });

  it('`stor help privilege fix` shows that verb, not the noun', async () => {
    const r = await runStor(['help', 'privilege', 'fix']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: stor privilege fix [options] [privilege]');
    expect(r.stdout).toContain('--drop-self-including');
    expect(r.stdout).toContain('$ stor privilege fix ops --dry-run');
  });

  it("`stor help call` lists the target's methods as `stor call --help` does", async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const viaHelp = await runStor(['help', 'call'], { env });
    const viaFlag = await runStor(['call', '--help'], { env });
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain('Methods of the embedded appliance');
    expect(viaHelp.stdout).toContain('privilege.query(');
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it('an unknown help topic exits 2 and names it', async () => {
    const r = await runStor(['help', 'privilege', 'nosuch']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no help topic "privilege nosuch"');
  });

  it('a verb\'s help shows its own options and one line pointing to `stor --help` for the global ones; no flag shows "(default: false)"', async () => {
    for (const argv of [
      ['whoami', '--help'],
      ['user', 'list', '--help'],
      ['help', 'privilege', 'fix'],
    ]) {
      const r = await runStor(argv);
      expect(r.stdout, argv.join(' ')).not.toContain('Global Options:');
      expect(r.stdout, argv.join(' ')).not.toContain('--url <url>');
      expect(r.stdout.split('\n').filter((l) => l.includes('stor --help'))).toEqual([
        'Global options (--json, --url, …): see `stor --help`.',
      ]);
    }
    expect((await runStor(['user', 'list', '--help'])).stdout).toContain('--fan-out <n>');
    const root = await runStor(['--help']);
    for (const flag of ['--json', '--url <url>', '--profile <name>', '--timeout <seconds>', '-v, --verbose'])
      expect(root.stdout).toContain(flag);
    for (const argv of [
      [],
      ['privilege', 'fix', '--help'],
      ['dataset', 'delete', '--help'],
      ['serve', '--help'],
      ['login', '--help'],
    ]) {
      expect((await runStor([...argv, ...(argv.length ? [] : ['--help'])])).stdout).not.toContain('(default: false)');
    }
  });

  it('--version is right wherever it appears, in-process and from the bundle', async () => {
    for (const argv of [['--version'], ['--verbose', '--version'], ['-v', '-V'], ['--json', '--version']]) {
      const r = await runStor(argv);
      expect(r.stdout.trim(), argv.join(' ')).toBe(version);
      const spawned = await spawnStor(argv);
      expect(spawned.stdout.trim(), `bin ${argv.join(' ')}`).toBe(version);
    }
  });

  it('a help flag before the command words shows the help of the command above them, whole, as commander reads the line', async () => {
    // Commander names commands only up to the first option it does not know: the words after it
    // are that command's unknown arguments, and the help it shows is of the command above them.
    const cases: [string[], string[]][] = [
      [['--help', 'whoami'], ['--help']],
      [['-h', 'privilege', 'fix'], ['--help']],
      [['--json', '--help', 'upload'], ['--help']],
      [['--bogus', 'whoami', '--help'], ['--help']],
      [
        ['privilege', '--help', 'fix'],
        ['privilege', '--help'],
      ],
      [
        ['share', 'nfs', '-h', 'create'],
        ['share', 'nfs', '--help'],
      ],
    ];
    for (const [argv, same] of cases) {
      const [line, whole] = await Promise.all([spawnStor(argv), spawnStor(same)]);
      expect({ argv, code: line.code, stdout: line.stdout }).toEqual({ argv, code: 0, stdout: whole.stdout });
    }
  });

  it('usage errors under --json are JSON on stderr, exit 2', async () => {
    for (const argv of [
      ['--json', 'whoami', '--jsno'],
      ['upload', '--json'],
      ['--json', 'nosuch'],
      ['--json', 'help', 'nosuch'],
    ]) {
      const r = await runStor(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      const doc = JSON.parse(r.stderr) as { error: { code: string; kind: string; message: string } };
      expect(doc.error.kind).toBe('usage');
      expect(doc.error.message.length).toBeGreaterThan(0);
    }
  });
});

describe('help text says each thing once, in order, within the width', () => {
  it("a default is shown once; upload's usage line names its target", async () => {
    const r = await runStor(['upload', '--help']);
    expect(r.stdout).toContain('Usage: stor upload [options] <files...> <target>');
    expect(r.stdout).toMatch(/--parallel <n>\s+transfers at once \(default: 4\)\n/);
    for (const args of [
      ['upload', '--help'],
      ['download', '--help'],
      ['serve', '--help'],
      ['privilege', 'fix', '--help'],
    ]) {
      expect((await runStor(args)).stdout.replace(/\s+/g, ' ')).not.toMatch(/\(default:? [^)]*\) \(default/);
    }
  });

  it('--targets says changes take it too', async () => {
    const r = await runStor(['--help']);
    const targets = r.stdout.slice(r.stdout.indexOf('--targets <list>')).split(/\n  -/)[0]!.replace(/\s+/g, ' ');
    expect(targets).not.toContain('run a read command');
    expect(targets).toContain('a change is planned on each, asked once, then made');
  });

  it('a noun alone lists its verbs before the global options', async () => {
    const r = await runStor(['privilege']);
    const commands = r.stdout.indexOf('\nCommands:\n');
    const globals = r.stdout.indexOf('\nGlobal Options:\n');
    expect(commands).toBeGreaterThan(0);
    expect(globals).toBeGreaterThan(commands);
    expect(r.stdout).toMatch(/\n {2}--rpc <transport>[^\n]*\n[^\n]*\n$/);
  });

  it('`call --help` fits its method list to the terminal, never breaking a word', async () => {
    const home = tempDir();
    for (const columns of [60, 80]) {
      const r = await runStor(['call', '--help'], { env: { STOR_HOME: home }, tty: true, columns });
      const methods = r.stdout.slice(r.stdout.indexOf('Methods of'));
      const lines = methods
        .split('\n')
        .slice(1)
        .filter((l) => l !== '');
      expect(lines.length).toBeGreaterThan(50);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(columns);
      expect(methods).toContain('truenas_container_unpriv_root');
      expect(methods).toMatch(/^ {2}user\.query\(filters, options\)\n {6}access: ACCOUNT_READ \| ACCOUNT_WRITE/m);
      // No word is cut or broken: every word is one the widest terminal shows too (a signature may
      // also break after its `(`).
      const wide = await runStor(['call', '--help'], { env: { STOR_HOME: home }, tty: true, columns: 400 });
      const words = (text: string) => text.split(/\s+|(?<=\()/);
      const whole = new Set(words(wide.stdout.slice(wide.stdout.indexOf('Methods of'))));
      expect(words(methods).filter((w) => !whole.has(w))).toEqual([]);
    }
  });
});
