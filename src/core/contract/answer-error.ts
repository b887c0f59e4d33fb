import { StorError } from '../errors.js';
import { E } from '../error-catalogue.js';

/*
 * Apart from client.ts, which imports zod and the whole contract: the transports report a frame
 * that is no appliance's with it, and they are loaded before the connect (the head start,
 * src/commands/startup/early-target.ts), which the contract must not delay.
 */

/**
 * An answer no 25.10.1 appliance gives: the target is not (or not wholly) one, so the command
 * cannot go on; exit 3 like any other target that cannot be worked with, never "a bug in stor".
 */
export function notAnApplianceAnswer(method: string | undefined, what: string): StorError {
  const raw = method === undefined ? '' : `; \`stor call ${method}\` shows its raw answer`;
  return new StorError(E.MALFORMED_ANSWER, `not a valid appliance answer: ${what}`, {
    hint: `the target may not speak the 25.10.1 API${raw}`,
  });
}
