# Runs the `stor` CLI on the controller for the collection's action plugins: one process, one login
# per appliance per task. The key travels only in the child's environment (STOR_API_KEY), never in
# its argv, and is never returned (docs/ANSIBLE.md "Credentials").
from __future__ import annotations

import json
import os
import shutil
import subprocess

# The options every stor.truenas module takes: which appliance, and how to reach it.
TARGET_ARGSPEC = dict(
    profile=dict(type='str'),
    url=dict(type='str'),
    api_key=dict(type='str', no_log=True),
    ca=dict(type='path'),
    insecure=dict(type='bool', default=False),
    timeout=dict(type='int'),
    session=dict(type='bool', default=False),
    stor=dict(type='path'),
)


class StorFailure(Exception):
    """stor could not be run, or answered with an error."""

    def __init__(self, msg, rc=None, error=None, stderr=None):
        super().__init__(msg)
        self.msg = msg
        self.rc = rc
        self.error = error
        self.stderr = stderr

    def result(self):
        out = dict(failed=True, msg=self.msg)
        if self.rc is not None:
            out['rc'] = self.rc
        if self.error is not None:
            out['stor_error'] = self.error
        return out


def target_of(args, task_vars):
    """The profile a task runs against: its `profile`, else the host's `stor_profile`, else the host's name."""
    if args.get('profile'):
        return args['profile']
    if args.get('url'):
        return None
    hostvars = task_vars or {}
    return hostvars.get('stor_profile') or hostvars.get('inventory_hostname')


def _last_json(text):
    """The JSON object stor printed: the whole text, or its last line that parses."""
    text = (text or '').strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith('{'):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def run_stor(args, profile, words, ok_codes=(0,)):
    """Runs `stor --json [target options] WORDS`; returns (rc, stdout's JSON). Other exit codes raise StorFailure."""
    exe = args.get('stor') or shutil.which('stor')
    if not exe:
        raise StorFailure('stor is not on PATH on the controller; install it (README "Install") or name it with stor: PATH')
    argv = [exe, '--json']
    if not args.get('session'):
        argv.append('--no-session')
    if profile:
        argv += ['--profile', profile]
    if args.get('url'):
        argv += ['--url', args['url']]
    if args.get('ca'):
        argv += ['--ca', args['ca']]
    if args.get('insecure'):
        argv.append('--insecure')
    if args.get('timeout') is not None:
        argv += ['--timeout', str(args['timeout'])]
    argv += list(words)
    env = dict(os.environ)
    if args.get('api_key'):
        env['STOR_API_KEY'] = args['api_key']
    try:
        # stdin is /dev/null: stor never waits on a prompt a task cannot answer.
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, check=False)
    except OSError as err:
        raise StorFailure('cannot run %s: %s' % (exe, err))
    data = _last_json(proc.stdout)
    if proc.returncode in ok_codes:
        return proc.returncode, data
    err = _last_json(proc.stderr)
    error = err.get('error') if isinstance(err, dict) else None
    if isinstance(error, dict):
        msg = '%s: %s' % (error.get('code', 'ERROR'), error.get('message', ''))
        if error.get('hint'):
            msg += ' (%s)' % error['hint']
    else:
        msg = (proc.stderr or '').strip() or 'stor exited with %d' % proc.returncode
    failure = StorFailure(msg, rc=proc.returncode, error=error, stderr=proc.stderr)
    failure.data = data
    raise failure
