import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { STOR_BIN } from '../../helpers/bin.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

/** The built binary on a real pseudo-terminal (util-linux `script`), as an operator runs it. */
function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const command = [process.execPath, STOR_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        STOR_SESSION: 'off',
        ...EMBEDDED_MEANT,
        TERM: 'xterm-256color',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

describe('colour follows chalk detection on a real terminal', () => {
  it('escapes by default, FORCE_COLOR=1 too; none with FORCE_COLOR=0, TERM=dumb or NO_COLOR', async () => {
    const home = tempDir('stor-home-');
    const bold = '\x1b[1mID\x1b[22m';
    expect(await onTerminal(['privilege', 'list'], { STOR_HOME: home })).toContain(bold);
    expect(await onTerminal(['privilege', 'list'], { STOR_HOME: home, FORCE_COLOR: '1' })).toContain(bold);
    const plain: Record<string, string>[] = [{ FORCE_COLOR: '0' }, { TERM: 'dumb' }, { NO_COLOR: '1' }];
    for (const env of plain) {
      const out = await onTerminal(['privilege', 'list'], { STOR_HOME: home, ...env });
      expect(out, JSON.stringify(env)).toMatch(/^ID\s+NAME/);
      expect(out, JSON.stringify(env)).not.toContain('\x1b[');
    }
  });
});
