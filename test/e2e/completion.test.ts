import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/core/config/profiles.js';
import { STOR_BIN } from '../helpers/bin.js';
import { spawnServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const hasZsh = spawnSync('zsh', ['-fc', 'true']).status === 0;

/** A `stor` on PATH, as an installed one would be: the scripts call it back for values. */
function shellEnv(): Record<string, string> {
  const bin = tempDir('stor-bin-');
  const shim = join(bin, 'stor');
  writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(STOR_BIN)} "$@"\n`);
  chmodSync(shim, 0o755);
  return { PATH: `${bin}:${process.env.PATH}`, HOME: tempDir('stor-home-'), STOR_HOME: tempDir('stor-state-'), STOR_CONFIG_DIR: tempDir('stor-config-'), STOR_CHECK_RESULTS: '1' };
}

const shellQuote = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

/**
 * `stor completion bash` as the built binary prints it, made once for the file (beforeAll): it
 * depends on neither state nor profiles, and printing it for every completion spawned twice the processes.
 */
let bashScript = '';
beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'stor-completion-'));
  bashScript = join(dir, 'stor.bash');
  writeFileSync(bashScript, execFileSync(process.execPath, [STOR_BIN, 'completion', 'bash'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } }));
  return () => rmSync(dir, { recursive: true, force: true });
});

/**
 * What bash offers for the words typed so far (the last one is being completed). COMP_WORDS is
 * split as bash splits it, at the `=` and `:` of COMP_WORDBREAKS, beside the typed COMP_LINE.
 */
function complete(env: Record<string, string>, typed: string[]): string[] {
  const words = typed.flatMap((w) => (w === '' ? [''] : w.match(/[=:]+|[^=:]+/g)!));
  const line = typed.join(' ');
  const out = execFileSync(
    'bash',
    ['-c', `source ${shellQuote(bashScript)}; COMP_WORDS=(${words.map(shellQuote).join(' ')}); COMP_CWORD=${words.length - 1}; COMP_LINE=${shellQuote(line)}; COMP_POINT=${line.length}; _stor_completion; printf '%s\\n' "\${COMPREPLY[@]}"`],
    { encoding: 'utf8', env },
  );
  return out.split('\n').filter((l) => l !== '');
}

/**
 * What zsh offers, through bashcompinit as `source <(stor completion zsh)` sets it up: the
 * variables are set as its _bash_complete sets them (zsh's own 1-based words), and since its
 * compgen leaves matching the word to zsh, the candidates are matched here the same way.
 */
function completeZsh(env: Record<string, string>, typed: string[]): string[] {
  const line = typed.join(' ');
  const out = execFileSync(
    'zsh',
    ['-fc', `autoload -U compinit && compinit -D; source <(stor completion zsh); COMP_WORDS=(${typed.map(shellQuote).join(' ')}); COMP_CWORD=${typed.length - 1}; COMP_LINE=${shellQuote(line)}; COMP_POINT=${line.length}; _stor_completion; print -rl -- "\${COMPREPLY[@]}"`],
    { encoding: 'utf8', env },
  );
  return out.split('\n').filter((l) => l !== '' && l.startsWith(typed.at(-1)!));
}

/** Makes the embedded appliance's state, as any first command does. */
function createEmbeddedState(env: Record<string, string>): void {
  execFileSync('stor', ['whoami'], { encoding: 'utf8', env });
}

describe('shell completion of commands, options and values', () => {
  it('bash: verbs, options, fixed choices and option values skipped when finding the verb', () => {
    const env = shellEnv();
    expect(complete(env, ['stor', 'privilege', 'f'])).toEqual(['fix']);
    expect(complete(env, ['stor', '--rpc', ''])).toEqual(['ws', 'http']);
    expect(complete(env, ['stor', '--timeout', '5', 'privilege', 'fix', '--dr'])).toEqual(['--dry-run', '--drop-self-including', '--drop-unknown']);
    expect(complete(env, ['stor', 'serve', '--emulate', 't'])).toEqual(['truenas-25.10.1']);
    // bash splits --url=ws://h:9 into five words: they are one option, not positional arguments.
    expect(complete(env, ['stor', '--url=ws://127.0.0.1:9', 'privilege', 'f'])).toEqual(['fix']);
  });

  it('bash: profile names from the saved profiles, privileges and methods from the target', async () => {
    const env = shellEnv();
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    await store.save('nas1', { url: 'wss://nas1.example.com', apiKey: '1-'.padEnd(66, 'k') }, true);
    await store.save('lab', { url: 'ws://127.0.0.1:6000', apiKey: '2-'.padEnd(66, 'k') }, false);
    expect(complete(env, ['stor', '--profile', ''])).toEqual(['lab', 'nas1']);
    createEmbeddedState({ ...env, STOR_CONFIG_DIR: tempDir('stor-noprofiles-') });
    // The embedded appliance is the target here: its seeded privileges, by name and by id.
    const privileges = complete({ ...env, STOR_CONFIG_DIR: tempDir('stor-noprofiles-') }, ['stor', 'privilege', 'show', '']);
    expect(privileges).toEqual(expect.arrayContaining(['1', '2', '3', 'Local\\ Administrator', 'Read-Only\\ Administrator']));
    const methods = complete({ ...env, STOR_CONFIG_DIR: tempDir('stor-noprofiles-') }, ['stor', 'call', 'privilege.']);
    expect(methods).toEqual(expect.arrayContaining(['privilege.create', 'privilege.query', 'privilege.roles']));
    expect(methods.every((m) => m.startsWith('privilege.'))).toBe(true);
    const paths = complete({ ...env, STOR_CONFIG_DIR: tempDir('stor-noprofiles-') }, ['stor', 'ls', '/mnt/t']);
    expect(paths).toEqual(['/mnt/tank/']);
  });

  it('an unreachable target completes to nothing, quickly and silently', () => {
    const env = { ...shellEnv(), STOR_URL: 'ws://127.0.0.1:9', STOR_API_KEY: '1-'.padEnd(66, 'k') };
    expect(complete(env, ['stor', 'privilege', 'show', ''])).toEqual([]);
  });

  it('values come from the target named on the line: --url, --url=, --rpc, --profile', async () => {
    const env = shellEnv();
    createEmbeddedState(env);
    expect(complete(env, ['stor', 'privilege', 'show', 'Loc'])).toEqual(['Local\\ Administrator']);
    // A name with a blank goes in quoted, and a word typed half-escaped or half-quoted completes too.
    expect(complete(env, ['stor', 'privilege', 'show', 'Local\\ Ad'])).toEqual(['Local\\ Administrator']);
    expect(complete(env, ['stor', 'privilege', 'show', "'Local Ad"])).toEqual(["'Local Administrator"]);
    // Not the embedded appliance's privileges: the one on the line, unreachable here.
    const withKey = { ...env, STOR_API_KEY: '1-'.padEnd(66, 'k') };
    expect(complete(withKey, ['stor', '--url', 'ws://127.0.0.1:9', 'privilege', 'show', 'Loc'])).toEqual([]);
    expect(complete(withKey, ['stor', '--url=ws://127.0.0.1:9', 'privilege', 'show', 'Loc'])).toEqual([]);

    const server = await spawnServe(tempDir('stor-served-'));
    const served = { ...env, STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim() };
    execFileSync('stor', ['--url', server.baseUrl, 'call', 'privilege.create', JSON.stringify({ name: 'Served Only', web_shell: false })], { encoding: 'utf8', env: served });
    expect(complete(env, ['stor', 'privilege', 'show', 'Serv'])).toEqual([]);
    expect(complete(served, ['stor', '--url', server.baseUrl, 'privilege', 'show', 'Serv'])).toEqual(['Served\\ Only']);
    expect(complete(served, ['stor', `--url=${server.baseUrl}`, '--rpc', 'http', 'privilege', 'show', 'Serv'])).toEqual(['Served\\ Only']);
    await new ProfileStore(env.STOR_CONFIG_DIR!).save('served', { url: server.baseUrl, apiKey: served.STOR_API_KEY }, false);
    expect(complete(env, ['stor', '--profile', 'served', 'privilege', 'show', 'Serv'])).toEqual(['Served\\ Only']);
    expect(complete(env, ['stor', '--profile=served', 'privilege', 'show', 'Serv'])).toEqual(['Served\\ Only']);
  });

  it('a TAB in a fresh state directory creates no appliance state, and offers nothing from it', () => {
    const env = shellEnv();
    expect(complete(env, ['stor', 'privilege', 'show', ''])).toEqual([]);
    expect(complete(env, ['stor', 'call', 'privilege.'])).toEqual([]);
    expect(complete(env, ['stor', 'ls', '/mnt/'])).toEqual([]);
    expect(readdirSync(env.STOR_HOME!)).toEqual([]);
  });

  it('zsh loads the bash script through bashcompinit; fish gets its own', () => {
    const env = shellEnv();
    const zsh = execFileSync('stor', ['completion', 'zsh'], { encoding: 'utf8', env });
    expect(zsh).toContain('autoload -U +X bashcompinit && bashcompinit');
    expect(zsh).toContain('complete -o default -F _stor_completion stor');
    const fish = execFileSync('stor', ['completion', 'fish'], { encoding: 'utf8', env });
    expect(fish).toContain("complete -c stor -n '__fish_seen_subcommand_from privilege; and __fish_seen_subcommand_from fix' -l dry-run");
    expect(fish).toContain("complete -c stor -n '__fish_seen_subcommand_from privilege; and __fish_seen_subcommand_from show' -a '(stor completion --values privilege --prefix (commandline -ct) 2>/dev/null)'");
    expect(fish).toMatch(/complete -c stor -n '[^']*' -l rpc -r -a 'ws http'/);
  });

  it.skipIf(!hasZsh)('zsh runs the script through bashcompinit: verbs, --rpc values, positional values', () => {
    const env = shellEnv();
    expect(completeZsh(env, ['stor', 'privilege', 'f'])).toEqual(['fix']);
    expect(completeZsh(env, ['stor', '--timeout', '5', 'privilege', 'fix', '--dr'])).toEqual(['--dry-run', '--drop-self-including', '--drop-unknown']);
    expect(completeZsh(env, ['stor', '--rpc', ''])).toEqual(['ws', 'http']);
    expect(completeZsh(env, ['stor', 'privilege', 'show', ''])).toEqual([]);
    createEmbeddedState(env);
    expect(completeZsh(env, ['stor', 'privilege', 'show', ''])).toEqual(expect.arrayContaining(['1', 'Local\\ Administrator', 'Read-Only\\ Administrator']));
    expect(completeZsh(env, ['stor', '--rpc', 'http', 'privilege', 'show', 'Loc'])).toEqual(['Local\\ Administrator']);
    expect(completeZsh({ ...env, STOR_API_KEY: '1-'.padEnd(66, 'k') }, ['stor', '--url=ws://127.0.0.1:9', 'privilege', 'show', 'Loc'])).toEqual([]);
  });
});
