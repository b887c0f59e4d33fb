import { ERRNO, rpcErrors, type RpcError } from '../errors.js';

/*
 * How `user.delete`, `group.delete` and `privilege.delete` refuse what is built in, errno and
 * text as 25.10.1 words them: the emulator throws these (src/core/appliance/), and the delete
 * verbs predict the same from reads before they ask (src/commands/{user,group,privilege}/delete.ts).
 */

/** MW/plugins/account.py:1046-1057, checked in this order (after the dispatcher's role check). */
export const userDeleteRefusal = {
  activeUser: (): RpcError => rpcErrors.call(ERRNO.EINVAL, 'Cannot delete the currently active user'),
  builtin: (): RpcError => rpcErrors.call(ERRNO.EINVAL, 'Cannot delete a built-in user'),
  immutable: (): RpcError => rpcErrors.call(ERRNO.EINVAL, 'Cannot delete an immutable user'),
};

/** MW/plugins/account.py:2159-2160. */
export const groupDeleteRefusal = {
  builtin: (): RpcError => rpcErrors.call(ERRNO.EACCES, 'A built-in group cannot be deleted.'),
};

/** MW/plugins/account_/privilege.py:163-164. */
export const privilegeDeleteRefusal = {
  builtin: (): RpcError => rpcErrors.call(ERRNO.EPERM, 'Unable to delete built-in privilege'),
};
