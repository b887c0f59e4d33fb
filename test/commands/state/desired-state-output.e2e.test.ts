/**
 * What `stor plan`, `stor apply` and `stor export` print, byte for byte, on a fresh embedded
 * appliance (piped: no terminal, no colour): the table rows, the notes and summaries on stderr, the
 * exported YAML. A rewrite of how desired state is planned and applied must leave every byte as it
 * is; STOR_BIN_UNDER_TEST holds another build to the same text.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedUnderTest } from '../../helpers/stor-under-test.js';
import { tempDir } from '../../helpers/temp-dir.js';

const EVERY = [
  'stor_state: 1',
  'api_keys:',
  '  - { name: carol-ci, user: carol, expires: "2031-01-02T03:04:05Z" }',
  'datasets:',
  '  - { name: tank/proj, comments: projects }',
  '  - { name: tank/proj/web, properties: { quota: 1G } }',
  'privileges:',
  '  - { name: webops, groups: [web, ops], roles: [READONLY_ADMIN, DATASET_READ] }',
  'users:',
  '  - { name: carol, group: ops, groups: [web], full_name: Carol Example }',
  'groups:',
  '  - { name: web, members: [carol] }',
  '  - { name: ops, gid: 4321 }',
  '  - { name: temp }',
  '',
].join('\n');

const DRIFT = [
  'stor_state: 1',
  'groups:',
  '  - { name: ops }',
  '  - { name: web, members: [] }',
  '  - { name: newgrp, gid: 4400 }',
  'users:',
  '  - { name: carol, shell: /usr/bin/bash, groups: [] }',
  'privileges:',
  '  - { name: webops, roles: [READONLY_ADMIN], web_shell: true }',
  'datasets:',
  '  - { name: tank/proj }',
  '  - { name: tank/proj/web, properties: { quota: 2G, compression: zstd } }',
  'api_keys:',
  '  - { name: carol-ci, user: carol, expires: null }',
  '',
].join('\n');

const OVERLAP_NOTE =
  'note: privilege webops: DATASET_READ is already included by READONLY_ADMIN: redundant; harmless on the emulator (terminating); the minimal list is READONLY_ADMIN (--normalize plans it)\n';

describe('stor plan / apply / export: the text, byte for byte', () => {
  it('a plan of every kind, its apply, the export, a drift with --prune and its apply, then no changes', async () => {
    // Fails on any change of a row, a field's order, a sign, an arrow, a note, a summary or the YAML.
    const dir = tempDir('stor-output-');
    writeFileSync(join(dir, 'every.yaml'), EVERY);
    writeFileSync(join(dir, 'drift.yaml'), DRIFT);
    const run = embeddedUnderTest(dir);

    const plan = await run(['plan', '-f', 'every.yaml'], 7);
    expect(plan.stdout).toBe(
      '+ create\tgroup web\tmembers: carol\n+ create\tgroup ops\tgid: 4321\n+ create\tgroup temp\t\n+ create\tuser carol\tfull_name: Carol Example\n\t\tgroup: ops\n\t\tgroups: web\n\t\tpassword_disabled: true\n+ create\tprivilege webops\tgroups: ops,web\n\t\troles: READONLY_ADMIN,DATASET_READ\n\t\tweb_shell: false\n+ create\tdataset tank/proj\tcomments: projects\n+ create\tdataset tank/proj/web\tquota: 1G\n+ create\tapi key carol-ci\tuser: carol\n\t\texpires: 2031-01-02T03:04:05.000Z\n',
    );
    expect(plan.stderr).toBe(`${OVERLAP_NOTE}8 object(s) would change; \`stor apply -f every.yaml\` applies them\n`);

    const applied = await run(['apply', '-f', 'every.yaml', '--yes', '--keys-out', 'keys.json']);
    expect(applied.stdout).toBe(
      'done\tcreate\tgroup web\t\ndone\tcreate\tgroup ops\t\ndone\tcreate\tgroup temp\t\ndone\tcreate\tuser carol\t\ndone\tcreate\tprivilege webops\t\ndone\tcreate\tdataset tank/proj\t\ndone\tcreate\tdataset tank/proj/web\t\ndone\tcreate\tapi key carol-ci\t\n',
    );
    expect(applied.stderr).toBe(
      `${OVERLAP_NOTE}1 new API key(s) written to the --keys-out file\n8 done, 0 failed, 0 not attempted\n`,
    );

    const exported = await run(['export']);
    expect(exported.stdout).toBe(
      'stor_state: 1\ngroups:\n  - name: truenas_admin\n    gid: 950\n    members: [ truenas_admin ]\n  - name: web\n    gid: 3000\n    members: [ carol ]\n  - name: ops\n    gid: 4321\n    members: [ carol ]\n  - name: temp\n    gid: 3001\n    members: []\nusers:\n  - name: truenas_admin\n    full_name: Local Administrator\n    group: truenas_admin\n    groups: [ builtin_administrators ]\n    shell: /usr/bin/zsh\n    home: /home/truenas_admin\n  - name: carol\n    full_name: Carol Example\n    group: ops\n    groups: [ web ]\n    shell: /usr/bin/zsh\n    home: /var/empty\n    password_disabled: true\nprivileges:\n  - name: webops\n    groups: [ ops, web ]\n    roles: [ READONLY_ADMIN, DATASET_READ ]\n    web_shell: false\ndatasets:\n  - name: tank/proj\n    comments: projects\n  - name: tank/proj/web\n    properties:\n      quota: 1G\nsnapshot_tasks: []\nreplications: []\nshares:\n  nfs: []\n  smb: []\napi_keys:\n  - name: stor-embedded-admin\n    user: truenas_admin\n    expires: null\n  - name: carol-ci\n    user: carol\n    expires: 2031-01-02T03:04:05.000Z\n',
    );
    expect(exported.stderr).toBe('');

    const drift = await run(['plan', '-f', 'drift.yaml', '--prune'], 7);
    expect(drift.stdout).toBe(
      '~ update\tgroup web\tmembers: carol → (none)\n+ create\tgroup newgrp\tgid: 4400\n~ update\tuser carol\tgroups: web → (none)\n\t\tshell: /usr/bin/zsh → /usr/bin/bash\n~ update\tprivilege webops\troles: READONLY_ADMIN,DATASET_READ → READONLY_ADMIN\n\t\tweb_shell: false → true\n~ update\tdataset tank/proj/web\tquota: 1G → 2G\n\t\tcompression: LZ4 → ZSTD\n~ update\tapi key carol-ci\texpires: 2031-01-02T03:04:05.000Z → (none)\n- delete\tgroup temp\t\n',
    );
    expect(drift.stderr).toBe('7 object(s) would change; `stor apply -f drift.yaml` applies them\n');

    const fixed = await run(['apply', '-f', 'drift.yaml', '--prune', '--yes']);
    expect(fixed.stdout).toBe(
      'done\tupdate\tgroup web\t\ndone\tcreate\tgroup newgrp\t\ndone\tupdate\tuser carol\t\ndone\tupdate\tprivilege webops\t\ndone\tupdate\tdataset tank/proj/web\t\ndone\tupdate\tapi key carol-ci\t\ndone\tdelete\tgroup temp\t\n',
    );
    expect(fixed.stderr).toBe('7 done, 0 failed, 0 not attempted\n');

    const none = await run(['plan', '-f', 'drift.yaml', '--prune']);
    expect([none.stdout, none.stderr]).toEqual(['', 'no changes: the target matches the file\n']);
  }, 120_000);
});
