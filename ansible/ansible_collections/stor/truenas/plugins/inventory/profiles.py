from __future__ import annotations

DOCUMENTATION = r'''
name: profiles
short_description: stor's saved profiles as hosts, their tags as groups
version_added: 0.1.0
description:
  - Reads C(stor profile list --json) on the controller. Each saved profile (not the embedded appliance unless asked) becomes a host named after it, in the group C(stor) and in one group per tag.
  - Each host gets C(stor_profile), C(stor_url) and C(stor_tags), and C(ansible_connection=local): the stor.truenas modules run on the controller.
  - The inventory file must end in C(.stor.yml) or C(.stor.yaml), or hold C(plugin: stor.truenas.profiles).
extends_documentation_fragment: [constructed]
options:
  plugin:
    description: The name of this plugin.
    required: true
    choices: [stor.truenas.profiles]
  stor:
    description: The stor executable; by default the one found on PATH.
    type: path
  include_embedded:
    description: Also list the embedded appliance, as the host C(embedded).
    type: bool
    default: false
  tag_group_prefix:
    description: Put before each tag to name its group (Ansible group names take letters, digits and C(_); other characters become C(_)).
    type: str
    default: ''
'''

EXAMPLES = r'''
# inventory.stor.yml
plugin: stor.truenas.profiles
keyed_groups:
  - key: stor_url is search('wss://')
    prefix: tls
'''

import json
import re
import shutil
import subprocess

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin, Constructable


def group_name(prefix, tag):
    return re.sub(r'[^A-Za-z0-9_]', '_', prefix + tag)


class InventoryModule(BaseInventoryPlugin, Constructable):
    NAME = 'stor.truenas.profiles'

    def verify_file(self, path):
        if not super().verify_file(path):
            return False
        if path.endswith(('.stor.yml', '.stor.yaml')):
            return True
        try:
            with open(path, 'r', encoding='utf-8') as handle:
                return re.search(r'^plugin:\s*[\'"]?stor\.truenas\.profiles\b', handle.read(), re.M) is not None
        except OSError:
            return False

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        exe = self.get_option('stor') or shutil.which('stor')
        if not exe:
            raise AnsibleParserError('stor.truenas.profiles: stor is not on PATH on the controller')
        try:
            proc = subprocess.run(
                [exe, '--json', 'profile', 'list'],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                check=False,
            )
        except OSError as err:
            raise AnsibleParserError('stor.truenas.profiles: cannot run %s: %s' % (exe, err))
        if proc.returncode != 0:
            raise AnsibleParserError('stor.truenas.profiles: `stor profile list` failed: %s' % proc.stderr.strip())
        try:
            profiles = json.loads(proc.stdout)
        except ValueError as err:
            raise AnsibleParserError('stor.truenas.profiles: `stor profile list --json` is not JSON: %s' % err)
        self.inventory.add_group('stor')
        prefix = self.get_option('tag_group_prefix')
        strict = self.get_option('strict')
        for profile in profiles:
            if profile.get('kind') == 'embedded' and not self.get_option('include_embedded'):
                continue
            host = profile['name']
            self.inventory.add_host(host, group='stor')
            hostvars = dict(
                stor_profile=host,
                stor_url=profile.get('url'),
                stor_tags=profile.get('tags', []),
                ansible_connection='local',
                ansible_python_interpreter='{{ ansible_playbook_python }}',
            )
            for key, value in hostvars.items():
                self.inventory.set_variable(host, key, value)
            for tag in profile.get('tags', []):
                group = self.inventory.add_group(group_name(prefix, tag))
                self.inventory.add_child(group, host)
            self._set_composite_vars(self.get_option('compose'), hostvars, host, strict=strict)
            self._add_host_to_composed_groups(self.get_option('groups'), hostvars, host, strict=strict)
            self._add_host_to_keyed_groups(self.get_option('keyed_groups'), hostvars, host, strict=strict)
