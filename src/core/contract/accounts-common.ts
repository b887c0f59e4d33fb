import * as z from 'zod';
import { once } from './method.js';

/**
 * What a `Secret` field of a 25.10.1 result carries for a caller that may not see it: the
 * placeholder, in place of the value (`MW/api/base/model.py:204-214`, `SECRET_VALUE`).
 */
export const SECRET_PLACEHOLDER = '********';
export const secret = <S extends z.ZodType>(schema: S) => z.union([schema, z.literal(SECRET_PLACEHOLDER)]);

/** `Literal['DIRECT'] | ContainerXID | None` (`MW/api/base/types/user.py`: ContainerXID 1 … 2^32-2). */
export const usernsIdmap = once(() =>
  z.union([
    z.literal('DIRECT'),
    z
      .int()
      .min(1)
      .max(2 ** 32 - 2),
    z.null(),
  ]),
);

/** `LocalUID` / `LocalGID`: 0 … TRUENAS_IDMAP_DEFAULT_LOW - 1. */
export const localXid = once(() => z.int().min(0).max(90_000_000));

const NAME_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.';

/** `repr()` of a one-character Python string. */
const reprChar = (c: string) => (c === "'" ? `"'"` : `'${c}'`);

/**
 * `validate_name` (`MW/api/base/types/user.py`): the ValueError texts pydantic reports as
 * `Value error, …` (LocalUsername: max 32, first a letter or `_`; GroupName: no limit, first may
 * also be a digit or `.`).
 */
export function posixName(validStart: string, maxLength: number | null) {
  const allowed = [...NAME_CHARS].join(', ');
  return z.string().superRefine((val, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (val.length === 0) return fail('Must be at least 1 character in length');
    if (maxLength !== null && val.length > maxLength) return fail(`Cannot exceed ${maxLength} charaters in length`);
    if (!validStart.includes(val[0]!)) return fail(`Cannot start with "${reprChar(val[0]!)}"`);
    if (![...val].every((c) => NAME_CHARS.includes(c))) fail(`Valid characters are: '${allowed}'`);
  });
}

export const LETTERS_AND_UNDERSCORE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_';

/**
 * pydantic's `EmailStr` (email-validator, deliverability not checked): the common refusals, with
 * pydantic's own wording, which carries no `Value error, ` prefix (`verbatim`).
 */
export const emailStr = once(() =>
  z.string().superRefine((val, ctx) => {
    const at = val.lastIndexOf('@');
    const reason =
      at < 0
        ? 'An email address must have an @-sign.'
        : at === 0
          ? 'There must be something before the @-sign.'
          : at === val.length - 1
            ? 'There must be something after the @-sign.'
            : !val.slice(at + 1).includes('.')
              ? 'The part after the @-sign is not valid. It should have a period.'
              : null;
    if (reason)
      ctx.addIssue({
        code: 'custom',
        message: `value is not a valid email address: ${reason}`,
        params: { verbatim: true },
      });
  }),
);
