#!/usr/bin/python
from __future__ import annotations

DOCUMENTATION = r'''
module: privilege_check
short_description: Find privileges that lock their users out (stor privilege check)
description:
  - Runs C(stor privilege check) and returns its findings. Changes nothing.
version_added: 0.1.0
extends_documentation_fragment: [stor.truenas.target]
options:
  fail_on_lockout:
    description: Fail the task when a privilege locks its users out.
    type: bool
    default: true
attributes:
  check_mode: {support: full}
  diff_mode: {support: none}
author: [stor developers]
'''

EXAMPLES = r'''
- stor.truenas.privilege_check:
'''

RETURN = r'''
lockout:
  description: Whether some privilege locks its users out.
  type: bool
  returned: success
check:
  description: C(stor privilege check --json).
  type: raw
  returned: success
'''

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec={}, bypass_checks=True)
    module.fail_json(msg='stor.truenas.privilege_check runs on the controller through its action plugin')


if __name__ == '__main__':
    main()
