/**
 * A user's two-factor record is reused between calls until the state changes (readUserSecret):
 * `auth.me` must still answer a secret given since, by this process or by another one on the same
 * state (the cache's key is SQLite's data_version, src/core/store/store.ts `cached`).
 */
import { describe, expect, it } from 'vitest';
import { enableTwoFactor, openTestAppliance } from '../../../helpers/appliance.js';

type Me = { pw_name: string; two_factor_config: { secret_configured: boolean } };

describe('auth.me two_factor_config', () => {
  it('follows a secret given after it was first answered, in this process and in another', async () => {
    const t = await openTestAppliance();
    const other = await openTestAppliance(undefined, t.stateDir);
    expect((await t.call<Me>(t.admin, 'auth.me')).two_factor_config.secret_configured).toBe(false);
    expect((await other.call<Me>(other.admin, 'auth.me')).two_factor_config.secret_configured).toBe(false);
    await enableTwoFactor(t, (await t.call<Me>(t.admin, 'auth.me')).pw_name);
    expect((await t.call<Me>(t.admin, 'auth.me')).two_factor_config.secret_configured).toBe(true);
    expect((await other.call<Me>(other.admin, 'auth.me')).two_factor_config.secret_configured).toBe(true);
  });
});
