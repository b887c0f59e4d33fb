from __future__ import annotations

from ansible_collections.stor.truenas.plugins.plugin_utils.stor_action import StorAction
from ansible_collections.stor.truenas.plugins.plugin_utils.stor_run import run_stor

# `stor privilege check` exits 6 when a privilege locks its users out (README "Exit codes").
LOCKOUT = 6


class ActionModule(StorAction):
    ARGSPEC = dict(fail_on_lockout=dict(type='bool', default=True))

    def act(self, args, profile, task_vars):
        rc, data = run_stor(args, profile, ['privilege', 'check'], ok_codes=(0, LOCKOUT))
        locked = rc == LOCKOUT
        out = dict(changed=False, lockout=locked, check=data)
        if locked and args['fail_on_lockout']:
            out.update(failed=True, msg='a privilege locks its users out; `stor privilege fix` repairs it')
        return out
