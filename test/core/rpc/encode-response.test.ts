/**
 * encodeResponse (src/core/rpc/codec.ts) puts an answer's text made once (appliance/answer-text.ts)
 * into the response: the bytes must be JSON.stringify's of the whole response, whatever the id.
 */
import { describe, expect, it } from 'vitest';
import { withKnownJson } from '../../../src/core/appliance/answer-text.js';
import { encodeResponse, errorResponse, successResponse } from '../../../src/core/rpc/codec.js';
import { rpcErrors } from '../../../src/core/errors.js';

const answer = () => ({ pw_name: 'é "quoted"\u2028', list: [1, null, { a: true }], nested: { $set: ['B', 'A'] } });

describe('encodeResponse', () => {
  for (const id of [1, 0, -7.5, 'x', 'a "quoted" \u2028 é id', null, true, false]) {
    it(`writes JSON.stringify's bytes for a known answer, id ${JSON.stringify(id)}`, () => {
      const known = withKnownJson(answer());
      expect(encodeResponse(successResponse(id, known))).toBe(JSON.stringify(successResponse(id, answer())));
    });
  }

  it('serializes other answers and errors as they are', () => {
    for (const result of [answer(), [1, 2], 'text', 3, null, true])
      expect(encodeResponse(successResponse(5, result))).toBe(JSON.stringify(successResponse(5, result)));
    const error = errorResponse('e', rpcErrors.notAuthenticated());
    expect(encodeResponse(error)).toBe(JSON.stringify(error));
  });
});
