# The part every stor.truenas action plugin shares: the modules run on the controller (they call the
# `stor` found on PATH there), never on the appliance, whatever the host's connection says.
from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.stor.truenas.plugins.plugin_utils.stor_run import (
    TARGET_ARGSPEC,
    StorFailure,
    target_of,
)


class StorAction(ActionBase):
    _supports_check_mode = True
    _supports_async = False
    # The module's own options, beside TARGET_ARGSPEC; set by each plugin.
    ARGSPEC = {}
    MUTUALLY_EXCLUSIVE = []
    REQUIRED_ONE_OF = []

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        spec = dict(TARGET_ARGSPEC)
        spec.update(self.ARGSPEC)
        _validation, args = self.validate_argument_spec(
            argument_spec=spec,
            mutually_exclusive=self.MUTUALLY_EXCLUSIVE,
            required_one_of=self.REQUIRED_ONE_OF,
        )
        profile = target_of(args, task_vars)
        try:
            result.update(self.act(args, profile, task_vars or {}))
        except StorFailure as failure:
            result.update(failure.result())
        if profile:
            result['stor_profile'] = profile
        return result

    def act(self, args, profile, task_vars):
        raise NotImplementedError
