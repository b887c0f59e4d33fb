import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';

const NOTE = 'stor: on the embedded appliance (no profile selected)\n';
/** As on a host where nothing says the embedded appliance is meant (the suite's helpers say it is: test/helpers/embedded-meant.ts). */
const fresh = () => ({ ...clientEnv(), STOR_REQUIRE_TARGET: undefined });

/**
 * With no profile selected (a fresh host, or after `stor logout`), stor falls back on the embedded
 * appliance (src/commands/framework/target.ts). A change made there says so, since the operator may
 * have meant an appliance; STOR_REQUIRE_TARGET=1 makes it an error instead. The first change runs
 * the built binary (the note on the real process's stderr); the others run in-process (runStor: the
 * same `run()` the binary calls, with the same environment), as the environment's words are the
 * subject, not the process.
 */
describe('a change on the embedded appliance nobody chose', () => {
  it('says on stderr where it was made, --json or not; a read stays silent', async () => {
    const env = fresh();
    const made = await spawnStor(['dataset', 'create', 'tank/prodlike'], { env });
    expect(made.code).toBe(0);
    expect(made.stdout).toContain('created\ttrue\n');
    expect(made.stderr).toBe(NOTE);
    const json = await runStor(['dataset', 'create', 'tank/prodlike2', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 'tank/prodlike2', created: true });
    expect(json.stderr).toBe(NOTE);
    const read = await runStor(['dataset', 'list'], { env });
    expect(read.code).toBe(0);
    expect(read.stderr).toBe('');
  });

  it('is silent when the embedded appliance was chosen: --profile embedded, STOR_PROFILE=embedded, stor profile use embedded', async () => {
    const env = fresh();
    const flag = await runStor(['--profile', 'embedded', 'dataset', 'create', 'tank/a'], { env });
    expect([flag.code, flag.stderr]).toEqual([0, '']);
    const variable = await runStor(['dataset', 'create', 'tank/b'], { env: { ...env, STOR_PROFILE: 'embedded' } });
    expect([variable.code, variable.stderr]).toEqual([0, '']);
    expect((await runStor(['profile', 'use', 'embedded'], { env })).code).toBe(0);
    const used = await runStor(['dataset', 'create', 'tank/c'], { env });
    expect([used.code, used.stderr]).toEqual([0, '']);
    const list = await runStor(['profile', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'embedded', current: true })]);
  });

  it('STOR_REQUIRE_TARGET=0 says the embedded appliance is meant: no note', async () => {
    const quiet = await runStor(['dataset', 'create', 'tank/meant'], {
      env: { ...fresh(), STOR_REQUIRE_TARGET: '0' },
    });
    expect([quiet.code, quiet.stderr]).toEqual([0, '']);
  });

  it('STOR_REQUIRE_TARGET=1 refuses it (NO_TARGET, exit 2) and changes nothing; an explicit choice still runs', async () => {
    const env = { ...fresh(), STOR_REQUIRE_TARGET: '1' };
    const refused = await runStor(['dataset', 'create', 'tank/prodlike', '--json'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(JSON.parse(refused.stderr).error).toMatchObject({
      code: 'NO_TARGET',
      message: expect.stringContaining('embedded appliance'),
    });
    const list = await runStor(['dataset', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { id: string }[]).map((d) => d.id)).not.toContain('tank/prodlike');
    const chosen = await runStor(['--profile', 'embedded', 'dataset', 'create', 'tank/prodlike'], { env });
    expect([chosen.code, chosen.stderr]).toEqual([0, '']);
  });

  it('a --dry-run is a read: no note, and STOR_REQUIRE_TARGET=1 lets it run', async () => {
    const env = fresh();
    const made = await runStor(['dataset', 'create', 'tank/base'], { env: { ...env, STOR_REQUIRE_TARGET: '0' } });
    expect(made.code).toBe(0);
    for (const required of [undefined, '1']) {
      const dry = await runStor(['dataset', 'update', 'tank/base', '--comments', 'x', '--dry-run'], {
        env: { ...env, STOR_REQUIRE_TARGET: required },
      });
      expect([dry.code, dry.stderr]).toEqual([0, 'stor: dry run: nothing was changed\n']);
    }
  });

  it('STOR_REQUIRE_TARGET takes the words STOR_SESSION takes: false/off/no are 0, true/on/yes are 1, any other is refused (BAD_REQUIRE_TARGET)', async () => {
    const env = fresh();
    for (const word of ['false', 'OFF', 'no']) {
      const quiet = await runStor(['group', 'create', `g${word.toLowerCase()}`], {
        env: { ...env, STOR_REQUIRE_TARGET: word },
      });
      expect([word, quiet.code, quiet.stderr]).toEqual([word, 0, '']);
    }
    const refused = await runStor(['group', 'create', 'gyes', '--json'], {
      env: { ...env, STOR_REQUIRE_TARGET: 'yes' },
    });
    expect(JSON.parse(refused.stderr).error.code).toBe('NO_TARGET');
    const wrong = await runStor(['group', 'create', 'gmaybe', '--json'], {
      env: { ...env, STOR_REQUIRE_TARGET: 'maybe' },
    });
    expect(wrong.code).toBe(2);
    expect(JSON.parse(wrong.stderr).error.code).toBe('BAD_REQUIRE_TARGET');
    const list = await runStor(['group', 'list', '--json'], { env: { ...env, STOR_REQUIRE_TARGET: '0' } });
    const names = (JSON.parse(list.stdout) as { name: string }[]).map((g) => g.name);
    expect(names).toEqual(expect.arrayContaining(['gfalse', 'goff', 'gno']));
    expect(names).not.toContain('gyes');
    expect(names).not.toContain('gmaybe');
  });
});
