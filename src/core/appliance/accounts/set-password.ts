import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { hashSecret, verifySecret } from '../../store/secrets.js';
import { updateUser } from '../../store/users.js';
import type { CallContext } from '../method.js';
import { AccountsSnapshot } from './accounts.js';

/*
 * `user.set_password` (MW/plugins/account.py:1751-1880), its checks in 25.10.1's order. Not
 * emulated: the security configuration's complexity, length, history and minimum-age rules (the
 * emulator has none, docs/RELEASES.md "Emulator behaviours"), SMB's passdb.
 */

const FIELD = 'user.set_password';

export interface SetPasswordData {
  username: string;
  old_password: string | null;
  new_password: string;
}

export async function setPassword(ctx: CallContext, data: SetPasswordData): Promise<null> {
  const { session, appliance } = ctx;
  const { store } = appliance;
  const isFullAdmin = session.isFullAdmin;
  // AccountFlag.OTPW: a login with a one-time password may set a new one without the old (account.py:1780-1783).
  const isOtpLogin = session.accountAttributes.includes('OTPW');
  const { username } = data;
  // account.py:1792-1797
  if (!isFullAdmin && session.credentials?.username !== username) {
    throw rpcErrors.call(
      ERRNO.EPERM,
      `${username}: currently authenticated credential may not reset password for this user.`,
    );
  }
  const errors: ValidationTriple[] = [];
  const add = (field: string, message: string) => errors.push([`${FIELD}.${field}`, message, ERRNO.EINVAL]);
  const entry = appliance.accounts().users.find((u) => u.username === username);
  if (!entry) {
    if (appliance.release.setPasswordRefusesUnknownUser)
      throw rpcErrors.validation([[`${FIELD}.username`, `${username}: user does not exist.`, ERRNO.EINVAL]]);
    // account.py:1804-1811 adds the error, then reads `entry['password_history']` of the empty
    // list user.query answered (account.py:1843): a TypeError, not the validation error.
    throw rpcErrors.exception(
      'TypeError',
      'list indices must be integers or slices, not str',
      "TypeError('list indices must be integers or slices, not str')",
    );
  }
  // account.py:1821-1841: the current password, unless a full administrator or a one-time login.
  if (!isFullAdmin && !isOtpLogin) {
    if (data.old_password === null)
      add('old_password', 'FULL_ADMIN role is required in order to bypass check for current password.');
    else {
      // PAM fails for an account without a usable password, as a wrong one.
      const stored = entry.password_disabled ? null : entry.password_hash;
      const ok =
        stored !== null &&
        (await appliance.loginHashes.run(
          session.origin.address,
          () => verifySecret(data.old_password!, stored),
          `user ${username}`,
        ));
      if (!ok) add('old_password', `${username}: failed to validate password.`);
    }
  }
  if (errors.length > 0) throw rpcErrors.validation(errors);
  // account.py:1855-1866, after the first check.
  if (entry.password_disabled) add('username', `${username}: password authentication disabled for user`);
  if (entry.locked) add('username', `${username}: user account is locked.`);
  if (errors.length > 0) throw rpcErrors.validation(errors);
  // Hashed outside the write lock, as user.update does.
  const hash = await hashSecret(data.new_password);
  store.write(() => {
    const current = AccountsSnapshot.load(store.db).users.find((u) => u.id === entry.id);
    if (!current) throw rpcErrors.instanceNotFound('User', entry.id);
    const { id, ...rest } = current;
    updateUser(store.db, id, { ...rest, password_hash: hash, last_password_change: Date.now() });
  });
  return null;
}
