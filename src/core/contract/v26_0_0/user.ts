import * as z from 'zod';
import { crud } from '../crud.js';
import { once, roles } from '../method.js';
import { method, service } from '../service.js';
import { twofactorOptions, userContract, userCreate, userEntry, userTwofactorConfig, userUpdate } from '../user.js';

// What 26.0 changed in the user.* methods stor serves (`git diff stable/26:MW/api/v25_10_1/user.py
// stable/26:MW/api/v26_0_0/user.py`): UserEntry gains `webshare` (default false, MW/api/v26_0_0/user.py:105-111),
// which UserCreate and UserUpdate inherit. `email`'s type moves from pydantic's EmailStr to
// EmailString (:272), which stor's `emailStr` already stands for. user.renew_2fa_secret's
// TwofactorOptions.interval is `Literal[30, 60]` (:474-481), `int >= 5` in 25.10.1
// (MW/api/v25_10_1/user.py:382); its answer is a UserEntry, so it carries webshare too. The rest is 25.10.1's.

const webshare = () => z.boolean();

const userEntry26 = once(() => userEntry().extend({ webshare: webshare() }));
const userCreateUpdateResult26 = once(() => userEntry26().extend({ password: z.string().min(1).nullable() }));
const userCreate26 = once(() => userCreate().extend({ webshare: webshare().default(false) }));
const userUpdate26 = once(() => userUpdate().extend({ webshare: webshare().optional() }));

const twofactorOptions26 = once(() => twofactorOptions().extend({ interval: z.literal([30, 60]).optional() }));

const users = crud(userEntry26, () => z.int(), { read: roles('ACCOUNT_READ'), write: roles('ACCOUNT_WRITE') });
const base = userContract;

/**
 * An entry as 25.10.1's handler answers it, in 26's shape: `webshare` false, since the emulator
 * serves no WebShare (the field's default, MW/api/v26_0_0/user.py:105-111). As MW's own version
 * adapter fills a field the older model lacks with its default (MW/api/base/handler/version.py).
 */
export function withWebshare(answer: unknown): unknown {
  const one = (entry: unknown) => (entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? { ...entry, webshare: false } : entry);
  return Array.isArray(answer) ? answer.map(one) : one(answer);
}

const overrides = service('user', {
  query: { ...users.query(base['user.query'].summary), fromBase: withWebshare },
  get_instance: { ...users.get_instance(base['user.get_instance'].summary), fromBase: withWebshare },
  create: { ...users.create(base['user.create'].summary, 'user_create', userCreate26, userCreateUpdateResult26), fromBase: withWebshare },
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
      params: () => [base['user.renew_2fa_secret'].params[0], { name: 'twofactor_options', schema: twofactorOptions26() }],
      result: () => userEntry26().extend({ twofactor_config: userTwofactorConfig() }),
    }),
    fromBase: withWebshare,
  },
});

export const userContract26 = overrides;
