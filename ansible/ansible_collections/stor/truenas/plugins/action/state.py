from __future__ import annotations

import json
import os
import shutil
import tempfile

import yaml
from ansible.errors import AnsibleError

from ansible_collections.stor.truenas.plugins.plugin_utils.stor_action import StorAction
from ansible_collections.stor.truenas.plugins.plugin_utils.stor_run import StorFailure, run_stor

# `stor plan` exits 7 when the target differs from the file (README "Exit codes").
DRIFT = 7


def object_diff(change):
    """One planned change as Ansible shows it under --diff: the object's fields before and after."""
    label = '%s %s' % (change['kind'], change['name'])
    before = {}
    after = {}
    if change['action'] == 'create':
        before['state'] = 'absent'
        after['state'] = 'present'
    elif change['action'] == 'delete':
        before['state'] = 'present'
        after['state'] = 'absent'
    for field in change.get('changes', []):
        if change['action'] != 'create':
            before[field['field']] = field['from']
        if change['action'] != 'delete':
            after[field['field']] = field['to']
    return dict(before_header=label, after_header=label, before=before, after=after)


def makes_keys(desired):
    return isinstance(desired, dict) and bool(desired.get('api_keys'))


class ActionModule(StorAction):
    ARGSPEC = dict(
        src=dict(type='path'),
        state=dict(type='raw'),
        prune=dict(type='bool', default=False),
        normalize=dict(type='bool', default=False),
        force=dict(type='bool', default=False),
        keep_going=dict(type='bool', default=False),
        keys_out=dict(type='path'),
    )
    MUTUALLY_EXCLUSIVE = [['src', 'state']]
    REQUIRED_ONE_OF = [['src', 'state']]

    def act(self, args, profile, task_vars):
        private = tempfile.mkdtemp(prefix='stor-state-')  # 0700: the desired state may name users
        try:
            path, desired = self._desired(args, private)
            check = bool(self._task.check_mode)
            words = ['plan' if check else 'apply', '-f', path]
            for flag in ('prune', 'normalize', 'force'):
                if args[flag]:
                    words.append('--' + flag)
            if not check:
                words.append('--yes')
                if args['keep_going']:
                    words.append('--keep-going')
                if makes_keys(desired):
                    if not args['keys_out']:
                        raise StorFailure(
                            'the state names api_keys: set keys_out to a controller path where new keys are written '
                            '(0600, never over an existing file); a key is never put in a task result'
                        )
                    words += ['--keys-out', args['keys_out']]
            try:
                rc, data = run_stor(args, profile, words, ok_codes=(0, DRIFT) if check else (0,))
            except StorFailure as failure:
                # The private file's name means nothing to the reader: the inline state is `state`.
                if not args['src']:
                    failure.msg = failure.msg.replace(path, 'state')
                # A failed apply still says what it did: its plan and each object's outcome.
                applied = getattr(failure, 'data', None)
                if isinstance(applied, dict) and 'results' in applied:
                    failure.msg += '; ' + ', '.join(
                        '%s %s: %s' % (r['kind'], r['name'], r['status']) for r in applied['results']
                    )
                raise
        finally:
            shutil.rmtree(private, ignore_errors=True)
        plan = data['plan'] if not check else data
        out = dict(plan=plan, diff=[object_diff(c) for c in plan.get('changes', [])])
        # stor's one-line summary (`comment` in plan/apply --json, docs/STATE.md "Machine output").
        if data.get('comment'):
            out['comment'] = data['comment']
        if check:
            out['changed'] = rc == DRIFT
        else:
            results = data.get('results', [])
            out['changed'] = bool(data.get('changed', any(r.get('status') == 'done' for r in results)))
            out['results'] = results
            # Names and ids of new keys; their secrets went to keys_out only.
            out['keys'] = [{k: v for k, v in key.items() if k != 'key'} for key in data.get('keys', [])]
        return out

    def _desired(self, args, private):
        """The state file stor reads: `src` as found beside the play or role, or `state` written to a private file."""
        if args['src']:
            try:
                path = self._find_needle('files', args['src'])
            except AnsibleError as err:
                raise StorFailure('src: %s' % err)
            try:
                with open(path, 'r', encoding='utf-8') as handle:
                    desired = yaml.safe_load(handle)
            except (OSError, yaml.YAMLError) as err:
                raise StorFailure('src: cannot read %s: %s' % (path, err))
            return path, desired
        desired = args['state']
        if isinstance(desired, str):
            try:
                desired = yaml.safe_load(desired)
            except yaml.YAMLError as err:
                raise StorFailure('state: not YAML: %s' % err)
        if not isinstance(desired, dict):
            raise StorFailure('state: give the desired state as a mapping (users:, datasets:, …)')
        # Inline, the format's version may be left out: this collection writes format 1 (docs/STATE.md).
        desired = dict(desired)
        desired.setdefault('stor_state', 1)
        path = os.path.join(private, 'state.json')
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, 'w', encoding='utf-8') as handle:
            json.dump(desired, handle, default=str)
        return path, desired
