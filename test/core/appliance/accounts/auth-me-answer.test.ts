/**
 * A session's `auth.me` object is handed out again while nothing it is made from changed
 * (describeSession, src/core/appliance/methods/auth.ts), with its JSON text made once for the
 * server to send (appliance/answer-text.ts). It must still answer a change made since: to the user,
 * by this process or by another one on the same state, and a new login on the same connection.
 */
import { describe, expect, it } from 'vitest';
import { knownJsonOf } from '../../../../src/core/appliance/answer-text.js';
import { createUserWithKey, openTestAppliance } from '../../../helpers/appliance.js';

type Me = { pw_name: string; pw_gecos: string; pw_shell: string; privilege: { roles: { $set: string[] } } };

/** The answer, after checking that the text the server would send is the answer's own. */
const sent = (me: Me) => {
  expect(knownJsonOf(me)).toBe(JSON.stringify(me));
  return me;
};

describe('auth.me asked again on one session', () => {
  it('follows the user changed by another process on the same state', async () => {
    const t = await openTestAppliance();
    const other = await openTestAppliance(undefined, t.stateDir);
    const first = sent(await t.call<Me>(t.admin, 'auth.me'));
    expect(sent(await t.call<Me>(t.admin, 'auth.me'))).toEqual(first);
    const [user] = await other.call<{ id: number }[]>(other.admin, 'user.query', [['username', '=', first.pw_name]]);
    await other.call(other.admin, 'user.update', user!.id, { full_name: 'Changed Elsewhere' });
    const after = sent(await t.call<Me>(t.admin, 'auth.me'));
    expect(after.pw_gecos).toBe('Changed Elsewhere');
    expect({ ...after, pw_gecos: first.pw_gecos }).toEqual(first);
  });

  it('follows the user changed by this process', async () => {
    const t = await openTestAppliance();
    const first = sent(await t.call<Me>(t.admin, 'auth.me'));
    const [user] = await t.call<{ id: number }[]>(t.admin, 'user.query', [['username', '=', first.pw_name]]);
    await t.call(t.admin, 'user.update', user!.id, { shell: '/usr/bin/bash' });
    expect(sent(await t.call<Me>(t.admin, 'auth.me')).pw_shell).toBe('/usr/bin/bash');
  });

  it('answers for the user a new login on the same session is', async () => {
    const t = await openTestAppliance();
    const { key } = await createUserWithKey(t, 'bob', { privilegeRoles: ['READONLY_ADMIN'] });
    const session = t.session();
    await t.call(session, 'auth.login_with_api_key', t.adminKey);
    const admin = sent(await t.call<Me>(session, 'auth.me'));
    await t.call(session, 'auth.login_with_api_key', key);
    const bob = sent(await t.call<Me>(session, 'auth.me'));
    expect(bob.pw_name).toBe('bob');
    expect(bob.privilege.roles.$set).not.toEqual(admin.privilege.roles.$set);
  });
});
