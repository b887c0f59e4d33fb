import * as z from 'zod';
import { crud } from '../crud.js';
import { extendAfter, once, roles } from '../method.js';
import { method, service } from '../service.js';
import { twofactorOptions, userContract, userCreate, userEntry, userTwofactorConfig, userUpdate } from '../user.js';

// What 26.0 changed in the user.* methods stor serves (`git diff stable/26:MW/api/v25_10_1/user.py
// stable/26:MW/api/v26_0_0/user.py`): UserEntry gains `webshare` (default false, MW/api/v26_0_0/user.py:105-111),
// which UserCreate and UserUpdate inherit. `email`'s type moves from pydantic's EmailStr to
// EmailString (:272), whose own checks and words are emailString26's. user.renew_2fa_secret's
// TwofactorOptions.interval is `Literal[30, 60]` (:474-481), `int >= 5` in 25.10.1
// (MW/api/v25_10_1/user.py:382); its answer is a UserEntry, so it carries webshare too. The rest is 25.10.1's.

const webshare = () => z.boolean();

// `webshare` after `smb`, where UserEntry declares it (MW/api/v26_0_0/user.py:105-111 at TS-26.0.0-BETA.3): its place in the answer.
const userEntry26 = once(() => extendAfter(userEntry(), 'smb', { webshare: webshare() }));
const userCreateUpdateResult26 = once(() => userEntry26().extend({ password: z.string().min(1).nullable() }));
/**
 * `EmailString` (MW/api/base/types/string.py:90): `email_validator`'s ValueErrors, which pydantic
 * reports as `Value error, …` (MW/api/base/validators/base.py:40-75): empty passes, at most 254
 * characters, an `@` with something on each side; no period needed after it.
 */
const emailString26 = once(() =>
  z.string().superRefine((value, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (value === '') return;
    if (value.length > 254) return fail('Maximum length is 254 characters.');
    const at = value.lastIndexOf('@');
    if (at === -1) return fail("Missing '@' symbol.");
    if (at === 0) return fail("Missing local part of email string (part before the '@').");
    if (at === value.length - 1) fail("Missing domain part of email string (part after the '@').");
  }),
);

const userCreate26 = once(() =>
  userCreate().extend({ email: emailString26().nullable().default(null), webshare: webshare().default(false) }),
);
const userUpdate26 = once(() =>
  userUpdate().extend({ email: emailString26().nullable().optional(), webshare: webshare().optional() }),
);

const twofactorOptions26 = once(() => twofactorOptions().extend({ interval: z.literal([30, 60]).optional() }));

const users = crud(userEntry26, () => z.int(), { read: roles('ACCOUNT_READ'), write: roles('ACCOUNT_WRITE') });
const base = userContract;

/**
 * An entry as 25.10.1's handler answers it, in 26's shape: `webshare` false, since the emulator
 * serves no WebShare (the field's default, MW/api/v26_0_0/user.py:105-111). As MW's own version
 * adapter fills a field the older model lacks with its default (MW/api/base/handler/version.py).
 */
export function withWebshare(answer: unknown): unknown {
  const one = (entry: unknown) =>
    entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? { ...entry, webshare: false } : entry;
  return Array.isArray(answer) ? answer.map(one) : one(answer);
}

const overrides = service('user', {
  query: { ...users.query(base['user.query'].summary), fromBase: withWebshare },
  get_instance: { ...users.get_instance(base['user.get_instance'].summary), fromBase: withWebshare },
  create: {
    ...users.create(base['user.create'].summary, 'user_create', userCreate26, userCreateUpdateResult26),
    fromBase: withWebshare,
  },
  update: {
    ...users.update(base['user.update'].summary, 'user_update', userUpdate26, userCreateUpdateResult26),
    app: base['user.update'].app,
    fromBase: withWebshare,
  },
  renew_2fa_secret: {
    ...method({
      summary: base['user.renew_2fa_secret'].summary,
      access: base['user.renew_2fa_secret'].access,
      app: base['user.renew_2fa_secret'].app,
      params: () => [
        base['user.renew_2fa_secret'].params[0],
        { name: 'twofactor_options', schema: twofactorOptions26() },
      ],
      result: () => userEntry26().extend({ twofactor_config: userTwofactorConfig() }),
    }),
    fromBase: withWebshare,
  },
});

export const userContract26 = overrides;
