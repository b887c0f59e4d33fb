import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATE_DB_FILE } from '../../../src/core/store/state-file.js';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('state and config directories are owner-only, however they were made', () => {
  it('tightens an existing world-readable state directory and config directory to 0700', async () => {
    const home = join(tempDir(), 'state');
    const config = join(tempDir(), 'config');
    mkdirSync(home, { mode: 0o755 });
    mkdirSync(config, { mode: 0o777 });
    chmodSync(config, 0o777);
    writeFileSync(join(config, 'config.json'), '{"profiles":{}}', { mode: 0o600 });
    const r = await runStor(['whoami'], { env: { STOR_HOME: home, STOR_CONFIG_DIR: config } });
    expect(r.code).toBe(0);
    expect(modeOf(home)).toBe(0o700);
    expect(modeOf(config)).toBe(0o700);
  });
});

describe('--ca', () => {
  it('is a usage error when unreadable or not a PEM certificate, on any target', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const missing = await runStor(['--ca', '/nonexistent/ca.pem', 'whoami'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read the CA file');
    const junk = join(tempDir(), 'junk.pem');
    writeFileSync(junk, '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n');
    const invalid = await runStor(['--ca', junk, 'whoami', '--json'], { env });
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stderr).error.code).toBe('CA_INVALID');
  });
});

describe('secret files loosened by hand are owner-only again after the next command', () => {
  it('admin.key, the state database and config.json loosened to 0644 are tightened back to 0600 by whoami and profile list', async () => {
    const home = join(tempDir(), 'state');
    const config = tempDir();
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: config };
    expect((await runStor(['whoami'], { env })).code).toBe(0);
    writeFileSync(join(config, 'config.json'), '{"profiles":{}}', { mode: 0o600 });
    const secrets = [join(home, 'admin.key'), join(home, STATE_DB_FILE), join(config, 'config.json')];
    for (const command of [['whoami'], ['profile', 'list']]) {
      for (const file of secrets) chmodSync(file, 0o644);
      const r = await runStor(command, { env });
      expect(r.code, r.stderr).toBe(0);
      // Every command reads the profiles; whoami on the embedded target opens the state too.
      for (const file of command[0] === 'whoami' ? secrets : secrets.slice(2))
        expect(modeOf(file), `${file} after ${command.join(' ')}`).toBe(0o600);
    }
  });
});
