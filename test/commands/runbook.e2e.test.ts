import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBash } from '../helpers/runbook.js';
import { spawnServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * An ops runbook as a shell script: every step checks its exit code and reads --json through
 * `node -e`, as a script with no jq would. Any surprise stops it with a message and exit 1.
 */
const RUNBOOK = String.raw`
set -u
step() { echo "step: $*" >&2; }
expect_code() { local want=$1; shift; "$@"; local got=$?; if [ "$got" != "$want" ]; then echo "FAILED: '$*' exited $got, expected $want" >&2; exit 1; fi; }
json() { node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const v=JSON.parse(s);const r=($1);if(r===false||r===undefined){console.error('check failed: $1');process.exit(1)}if(r!==true)console.log(r)})"; }

step whoami
stor whoami --json > out.json || exit 1
json 'v.username==="truenas_admin" && v.role_count===141' < out.json || exit 1

step dataset create
expect_code 0 stor dataset create tank/proj --comments runbook --json > out.json
json 'v.id==="tank/proj"' < out.json || exit 1

step dataset list
stor dataset list --json | json 'v.some(d=>d.id==="tank/proj" && d.comments==="runbook")' || exit 1

step upload
printf 'runbook payload\n' > payload.txt
expect_code 0 stor upload payload.txt /mnt/tank/proj/ --mode 0640 --json > out.json
json 'v.files.length===1 && v.files[0].outcome==="done" && v.files[0].mode==="0640" && v.files[0].size===16 && v.files[0].owner==="truenas_admin"' < out.json || exit 1

step stat
stor stat /mnt/tank/proj/payload.txt --json | json 'v.mode==="0640" && v.st_mode===0o100640 && v.size===16' || exit 1

step ls
stor ls /mnt/tank/proj --json | json 'v.map(e=>e.name).join()==="payload.txt"' || exit 1

step upload refused locally
expect_code 2 stor upload missing.txt /mnt/tank/proj/ 2> err.txt

step group and privilege
expect_code 0 stor call group.create '{"name":"ops","smb":false}' > /dev/null
expect_code 0 stor privilege create ops --groups ops --roles READONLY_ADMIN,POOL_READ --force --json > out.json
json 'v.health.includes("overlap")' < out.json || exit 1

step check finds the lockout
expect_code 6 stor privilege check --json > out.json
json 'v.ok===false && v.privileges[0].name==="ops"' < out.json || exit 1

step fix
expect_code 0 stor privilege fix ops --yes --json > out.json
json 'v.privileges[0].after.join()==="READONLY_ADMIN"' < out.json || exit 1
expect_code 0 stor privilege check --json > /dev/null

step call
stor call privilege.query '[["name","=","ops"]]' '{"get":true}' | json 'v.roles.join()==="READONLY_ADMIN"' || exit 1

step delete needs --yes off a terminal
expect_code 2 stor dataset delete tank/proj --recursive 2> err.txt
expect_code 0 stor dataset delete tank/proj --recursive --yes --json > out.json
json 'v.deleted.join()==="tank/proj"' < out.json || exit 1
stor dataset list --json | json '!v.some(d=>d.id==="tank/proj")' || exit 1
echo RUNBOOK-OK
`;

describe('an ops runbook', () => {
  it('runs a dozen stor commands against stor serve, checking every exit code and --json document', async () => {
    const server = await spawnServe(tempDir(), ['--role-expansion', 'as-reported']);
    const work = tempDir();
    const result = await runBash(
      RUNBOOK,
      {
        STOR_HOME: tempDir(),
        STOR_CONFIG_DIR: tempDir(),
        STOR_URL: server.baseUrl,
        STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
      },
      { strict: false, cwd: work },
    );
    expect(result.stderr).not.toContain('FAILED');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('RUNBOOK-OK');
    expect(result.stderr.match(/^step: /gm)).toHaveLength(12);
  });
});
