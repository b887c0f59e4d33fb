from __future__ import annotations

from ansible_collections.stor.truenas.plugins.plugin_utils.stor_action import StorAction
from ansible_collections.stor.truenas.plugins.plugin_utils.stor_run import run_stor


class ActionModule(StorAction):
    def act(self, args, profile, task_vars):
        # One process, one login: `stor system facts` is whoami, system info, pools and datasets at once.
        _rc, facts = run_stor(args, profile, ['system', 'facts'])
        facts = facts or {}
        system = facts.get('system') or {}
        return dict(
            changed=False,
            ansible_facts=dict(
                stor_whoami=facts.get('whoami'),
                stor_release=system.get('version'),
                stor_system=system,
                stor_pools=facts.get('pools', []),
                stor_datasets=facts.get('datasets', []),
            ),
        )
