#!/usr/bin/python
from __future__ import annotations

DOCUMENTATION = r'''
module: info
short_description: Gather an appliance's identity, release, pools and datasets as facts
description:
  - Runs C(stor system facts) (one process, one login) and sets C(stor_whoami), C(stor_release), C(stor_system), C(stor_pools) and C(stor_datasets).
version_added: 0.1.0
extends_documentation_fragment: [stor.truenas.target]
attributes:
  check_mode: {support: full}
  diff_mode: {support: none}
author: [stor developers]
'''

EXAMPLES = r'''
- stor.truenas.info:
- ansible.builtin.debug:
    msg: "{{ inventory_hostname }} runs {{ stor_release }}"
'''

RETURN = r'''
ansible_facts:
  description: stor_whoami, stor_release, stor_system, stor_pools, stor_datasets.
  type: dict
  returned: success
'''

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec={}, bypass_checks=True)
    module.fail_json(msg='stor.truenas.info runs on the controller through its action plugin')


if __name__ == '__main__':
    main()
