import { describe, expect, it } from 'vitest';
import { completionDeadlineSeconds } from '../../../src/commands/completion/values.js';

describe('the completion deadline', () => {
  it('is 3 s unless STOR_COMPLETION_TIMEOUT says otherwise, up to 60 s; anything else leaves 3 s', () => {
    expect(completionDeadlineSeconds(undefined, {})).toBe(3);
    expect(completionDeadlineSeconds(undefined, { STOR_COMPLETION_TIMEOUT: '10' })).toBe(10);
    expect(completionDeadlineSeconds(undefined, { STOR_COMPLETION_TIMEOUT: ' 0.5 ' })).toBe(0.5);
    for (const bad of ['0', '61', '-5', 'ten', '1e3', ''])
      expect(completionDeadlineSeconds(undefined, { STOR_COMPLETION_TIMEOUT: bad })).toBe(3);
  });

  it('goes past 30 s when STOR_COMPLETION_TIMEOUT asks and no --timeout is given: the default --timeout does not lower it', () => {
    expect(completionDeadlineSeconds(undefined, { STOR_COMPLETION_TIMEOUT: '45' })).toBe(45);
    expect(completionDeadlineSeconds(undefined, { STOR_COMPLETION_TIMEOUT: '60' })).toBe(60);
  });

  it('is lowered by a --timeout given on the command line, never raised', () => {
    expect(completionDeadlineSeconds(10, { STOR_COMPLETION_TIMEOUT: '45' })).toBe(10);
    expect(completionDeadlineSeconds(2, {})).toBe(2);
    expect(completionDeadlineSeconds(30, {})).toBe(3);
  });
});
