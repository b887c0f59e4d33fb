/**
 * Groups of one depth are combined in Ansible's order, `sorted(groups, key=lambda g: (g.depth,
 * g.priority, g.name))` (ansible lib/ansible/inventory/helpers.py sort_groups): Python compares the
 * names code point by code point, so `Prod` comes before `lab` and `lab`'s variable wins. A
 * locale's collation (localeCompare) put `lab` first, so stor imported the other group's URL; and
 * with the collation of the process's locale (LANG), two shells, or the session agent started
 * under another LANG, could import the same inventory differently.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { groupsFromYaml, inventoryHosts } from '../../../src/core/config/ansible-inventory.js';

const urlOf = (children: Record<string, unknown>) =>
  inventoryHosts(groupsFromYaml(parseYaml(JSON.stringify({ all: { children } }))))[0]!.vars.stor_url;

describe('an Ansible inventory: groups of one depth combine in Python name order, whatever the locale', () => {
  it('`Prod` before `lab` (upper case first): the variable of `lab` wins, as in Ansible', () => {
    expect(
      urlOf({
        Prod: { vars: { stor_url: 'wss://prod' }, hosts: { nas1: {} } },
        lab: { vars: { stor_url: 'wss://lab' }, hosts: { nas1: {} } },
      }),
    ).toBe('wss://lab');
  });

  it('`aa` before `z`, and `Z` before `_x` (code points), as Python sorts them', () => {
    expect(
      urlOf({
        z: { vars: { stor_url: 'wss://z' }, hosts: { nas1: {} } },
        aa: { vars: { stor_url: 'wss://aa' }, hosts: { nas1: {} } },
      }),
    ).toBe('wss://z');
    expect(
      urlOf({
        _x: { vars: { stor_url: 'wss://_x' }, hosts: { nas1: {} } },
        Z: { vars: { stor_url: 'wss://Z' }, hosts: { nas1: {} } },
      }),
    ).toBe('wss://_x');
  });
});
