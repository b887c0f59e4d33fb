import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

// An OSC that retitles the terminal window, a CSI that erases the line, and a C1 CSI (0x9b).
const HOSTILE = 'ops\u001b]0;X\u0007\u001b[2K\u009b31m';

async function withHostilePrivilege() {
  const home = tempDir();
  Appliance.open({ stateDir: home }).close();
  const env = { STOR_HOME: home };
  expect((await runStor(['call', 'group.create', '{"name":"ops","smb":false}'], { env })).code).toBe(0);
  const created = await runStor(
    [
      'call',
      'privilege.create',
      JSON.stringify({ name: HOSTILE, web_shell: false, local_groups: [], roles: ['POOL_READ', 'POOL_READ'] }),
    ],
    { env },
  );
  expect(created.code).toBe(0);
  return env;
}

const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
// On a terminal the renderer adds its own SGR colour sequences; anything else is from the data.
const withoutOwnColour = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

describe('control characters from the appliance never reach the terminal raw', () => {
  it('privilege list: escaped on a terminal, in TSV, and still the same value in --json', async () => {
    const env = await withHostilePrivilege();
    for (const tty of [false, true]) {
      // Wide enough that the table does not shorten the (escaped, so long) name with …
      const r = await runStor(['privilege', 'list'], { env, tty, columns: 200 });
      expect(r.code).toBe(0);
      expect(withoutOwnColour(r.stdout)).not.toMatch(RAW_CONTROL);
      expect(r.stdout).toContain('ops\\x1b]0;X\\x07\\x1b[2K\\x9b31m');
    }
    // At 60 columns the name (an identifier, never shortened) is whole in its escaped form: still nothing raw.
    const narrow = await runStor(['privilege', 'list'], { env, tty: true, columns: 60 });
    expect(withoutOwnColour(narrow.stdout)).not.toMatch(RAW_CONTROL);
    expect(narrow.stdout).toContain('ops\\x1b]0;X\\x07\\x1b[2K\\x9b31m');
    const json = await runStor(['privilege', 'list', '--json'], { env });
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(json.stdout).some((p: { name: string }) => p.name === HOSTILE)).toBe(true);
  });

  it('in prose (check) and in error messages', async () => {
    const env = await withHostilePrivilege();
    const check = await runStor(['privilege', 'check'], { env });
    expect(check.stdout).toContain('ops\\x1b]0;X');
    expect(check.stdout).not.toMatch(RAW_CONTROL);
    // The appliance's error text quotes the path back, controls and all.
    const missing = await runStor(['stat', '/mnt/tank/x\u001b[31my'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('x\\x1b[31my');
    expect(missing.stderr).not.toMatch(RAW_CONTROL);
  });
});
