/**
 * A `~` filter's pattern that Python's re refuses, through a method: re.match compiles it when the
 * filter reaches an item (TS-25.10.1 MW/utils/filter_list.py:153-157; TS-26.0.0-BETA.3
 * MW/api/base/validators/filter_ops.py:29-32), the validators never do (TS-25.10.1
 * filter_list.py:205-262, TS-26.0.0-BETA.3 validators/filters.py:12-70), and the exception is the
 * release's Python's: 3.11's `error` on 25.10.x, 3.13's `PatternError` on 26.0 (release.ts `python`).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance } from '../../../helpers/appliance.js';

describe('a ~ pattern Python refuses, per release', () => {
  for (const [release, cls] of [
    ['25.10.1', 'error'],
    ['26.0', 'PatternError'],
  ] as const) {
    it(`${release}: ${cls} once an item is reached; no item reached, the query answers`, async () => {
      const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
      const e = (await t.callError(t.admin, 'user.query', [['username', '~', '(']])).toJSON();
      expect(e).toMatchObject({
        code: -32001,
        data: {
          reason: 'missing ), unterminated subpattern at position 0',
          trace: { class: cls, repr: `${cls}('missing ), unterminated subpattern at position 0')` },
        },
      });
      expect(
        await t.call(t.admin, 'user.query', [
          ['username', '=', 'nobody-here'],
          ['username', '~', '('],
        ]),
      ).toEqual([]);
      // No snapshots at all: nothing is matched, so nothing compiles the pattern.
      expect(await t.call(t.admin, 'pool.snapshot.query', [['name', '~', 'a**']])).toEqual([]);
      // The two Pythons' words differ here: 3.13 has no TEMPLATE flag.
      expect((await t.callError(t.admin, 'user.query', [['username', '~', '(?t:a)']])).toJSON().data).toMatchObject({
        reason:
          release === '26.0'
            ? 'unknown extension ?t at position 1'
            : 'bad inline flags: cannot turn on global flag at position 3',
      });
    });
  }
});
