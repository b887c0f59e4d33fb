import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/core/config/profiles.js';
import { STOR_BIN } from '../helpers/bin.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A `stor` on PATH, as an installed one would be: the scripts call it back for values. */
function shellEnv(): Record<string, string> {
  const bin = tempDir('stor-bin-');
  const shim = join(bin, 'stor');
  writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(STOR_BIN)} "$@"\n`);
  chmodSync(shim, 0o755);
  return { PATH: `${bin}:${process.env.PATH}`, HOME: tempDir('stor-home-'), STOR_HOME: tempDir('stor-state-'), STOR_CONFIG_DIR: tempDir('stor-config-'), STOR_CHECK_RESULTS: '1' };
}

/** What bash offers for the words typed so far (the last one is being completed). */
function complete(env: Record<string, string>, words: string[]): string[] {
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const out = execFileSync(
    'bash',
    ['-c', `source <(stor completion bash); COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _stor_completion; printf '%s\\n' "\${COMPREPLY[@]}"`],
    { encoding: 'utf8', env },
  );
  return out.split('\n').filter((l) => l !== '');
}

describe('shell completion of commands, options and values', () => {
  it('bash: verbs, options, fixed choices and option values skipped when finding the verb', () => {
    const env = shellEnv();
    expect(complete(env, ['stor', 'privilege', 'f'])).toEqual(['fix']);
    expect(complete(env, ['stor', '--rpc', ''])).toEqual(['ws', 'http']);
    expect(complete(env, ['stor', '--timeout', '5', 'privilege', 'fix', '--dr'])).toEqual(['--dry-run', '--drop-self-including', '--drop-unknown']);
    expect(complete(env, ['stor', 'serve', '--emulate', 't'])).toEqual(['truenas-25.10.1']);
  });

  it('bash: profile names from the saved profiles, privileges and methods from the target', async () => {
    const env = shellEnv();
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    await store.save('nas1', { url: 'wss://nas1.example.com', apiKey: '1-'.padEnd(66, 'k') }, true);
    await store.save('lab', { url: 'ws://127.0.0.1:6000', apiKey: '2-'.padEnd(66, 'k') }, false);
    expect(complete(env, ['stor', '--profile', ''])).toEqual(['lab', 'nas1']);
    // The embedded appliance is the target here: its seeded privileges, by name and by id.
    const privileges = complete({ ...env, STOR_CONFIG_DIR: tempDir('stor-noprofiles-') }, ['stor', 'privilege', 'show', '']);
    expect(privileges).toEqual(expect.arrayContaining(['1', '2', '3', 'Local Administrator', 'Read-Only Administrator']));
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
});
