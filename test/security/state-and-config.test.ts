import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStor } from '../helpers/run-stor.js';
import { tempDir } from '../helpers/temp-dir.js';

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
