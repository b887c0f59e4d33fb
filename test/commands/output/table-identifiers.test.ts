import { describe, expect, it } from 'vitest';
import { render, type View } from '../../../src/commands/output/render.js';
import { clientEnv, localFile } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';

/** A command on an 80-column (or narrower) terminal, without colour, on a fresh embedded appliance. */
function terminal(columns = 80) {
  const env = clientEnv();
  return (args: string[]) => runStor(args, { env, tty: true, color: 0, columns });
}

const onTerminal = (view: View, width: number) =>
  render({ data: null, view }, { json: false, tty: true, color: 0, width });

// docs/COMMANDS.md "Output": identifiers and status words are never shortened; only free text gives way.
describe('tables never shorten identifiers or status words, whatever the width', () => {
  it('privilege list at 80 columns: every group name whole, none cut with …', async () => {
    const r = await terminal()(['privilege', 'list']);
    expect(r.code, r.stderr).toBe(0);
    for (const group of ['builtin_administrators', 'truenas_readonly_administrators', 'truenas_sharing_administrators'])
      expect(r.stdout).toContain(group);
    expect(r.stdout).not.toContain('…');
  });

  it('upload at 80 columns: every source and target path whole, the outcome whole', async () => {
    const run = terminal();
    const files = [
      localFile('a-rather-long-file-name-for-the-upload.bin', 'x'),
      localFile('another-rather-long-file-name.bin', 'y'),
    ];
    const r = await run(['upload', ...files, '/mnt/tank/projects/some-deep-directory/with-long-names/']);
    expect(r.code, r.stderr).toBe(0);
    for (const f of files) expect(r.stdout).toContain(f);
    expect(r.stdout).toContain(
      '/mnt/tank/projects/some-deep-directory/with-long-names/a-rather-long-file-name-for-the-upload.bin',
    );
    expect(r.stdout).not.toContain('…');
  });

  it('privilege fix --dry-run on a 40-column terminal: the status word whole', async () => {
    const run = terminal(40);
    expect((await run(['privilege', 'create', 'ops', '--roles', 'READONLY_ADMIN,SHARING_READ', '--force'])).code).toBe(
      0,
    );
    const r = await run(['privilege', 'fix', 'ops', '--dry-run']);
    expect(r.stdout).toMatch(/\bwould-fix\b/);
    expect(r.stdout).not.toContain('…');
  });

  it('an unmarked column (a status such as "not attempted") is never cut; a wrapped list breaks between words only', async () => {
    const view: View = {
      kind: 'table',
      columns: ['target', 'outcome', { header: 'groups', overflow: 'wrap' }, { header: 'error', overflow: 'wrap' }],
      rows: [
        [
          '/mnt/tank/projects/deep/directory/file.bin',
          'not attempted',
          'truenas_readonly_administrators, builtin_administrators',
          'an earlier file failed, so this one was not sent at all',
        ],
      ],
    };
    const out = await onTerminal(view, 40);
    const words = out.replace(/\s+/g, ' ');
    for (const whole of [
      '/mnt/tank/projects/deep/directory/file.bin',
      'not attempted',
      'truenas_readonly_administrators,',
      'builtin_administrators',
    ])
      expect(words).toContain(whole);
    expect(out).not.toContain('…');
  });
});
