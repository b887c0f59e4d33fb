import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { E } from '../../../src/core/error-catalogue.js';

// Names every plain object answers to: in a profiles map with a prototype they looked saved.
const INHERITED = ['valueOf', 'constructor', 'toString', 'hasOwnProperty', '__proto__'];

/** A config with one profile, nas1, imported as a user would. */
async function oneProfile(): Promise<{ env: Record<string, string>; config: string }> {
  const dir = tempDir();
  const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
  writeFileSync(join(dir, 'key'), `1-${'a'.repeat(64)}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'fleet.yaml'), '- {name: nas1, url: ws://127.0.0.1:9, key_file: key}\n');
  const r = await runStor(['profile', 'import', join(dir, 'fleet.yaml')], { env });
  expect(r.code, r.stderr).toBe(0);
  return { env, config: join(env.STOR_CONFIG_DIR, 'config.json') };
}

/** `--targets` names profiles to fan out to: one that is not saved is a usage error (BAD_TARGETS, exit 2); elsewhere NOT_FOUND, exit 1. */
function unknownProfile(
  r: { code: number; stderr: string },
  name: string,
  as: typeof E.NOT_FOUND | typeof E.BAD_TARGETS = E.NOT_FOUND,
): void {
  expect(r.code, r.stderr).toBe(as === E.NOT_FOUND ? 1 : 2);
  const error = JSON.parse(r.stderr).error;
  expect(error.code).toBe(as.code);
  expect(error.message).toContain(JSON.stringify(name));
}

describe('profile names that every JavaScript object answers to are names like any other', () => {
  it('profile use, remove and tag of valueOf, constructor, hasOwnProperty … fail as unknown profiles and change nothing', async () => {
    const { env, config } = await oneProfile();
    const before = readFileSync(config, 'utf8');
    for (const name of INHERITED) {
      unknownProfile(await runStor(['profile', 'use', name, '--json'], { env }), name);
      unknownProfile(await runStor(['profile', 'remove', name, '--json'], { env }), name);
      unknownProfile(await runStor(['profile', 'tag', name, 'prod', '--json'], { env }), name);
    }
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it('--profile toString and --targets nas[1-1],toString name an unknown profile before any target is contacted', async () => {
    const { env } = await oneProfile();
    for (const name of INHERITED) {
      unknownProfile(await runStor(['--profile', name, 'whoami', '--json'], { env }), name);
      unknownProfile(
        await runStor(['--targets', `nas[1-1],${name}`, 'whoami', '--json'], { env }),
        name,
        E.BAD_TARGETS,
      );
    }
  });
});
