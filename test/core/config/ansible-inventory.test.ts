/**
 * Ansible inventories as Ansible reads them (core/config/ansible-inventory.ts), for
 * `stor profile import`: groups, children, group and host variables, in YAML and INI.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  groupsFromIni,
  groupsFromYaml,
  inventoryHosts,
  shellWords,
} from '../../../src/core/config/ansible-inventory.js';

const fromYaml = (text: string) => inventoryHosts(groupsFromYaml(parseYaml(text)));
const fromIni = (text: string) => inventoryHosts(groupsFromIni(text));

/** The same fleet in both formats: all < storage < site_a/site_b group vars < host vars. */
const YAML = `
all:
  vars:
    stor_url: "wss://{{ ansible_host }}"
    stor_rpc: ws
  hosts:
    web1:
      ansible_host: 10.0.0.9
  children:
    storage:
      vars:
        stor_key_file: keys/default.key
        stor_rpc: http
      children:
        site_a:
          vars:
            stor_key_file: keys/site_a.key
          hosts:
            nas1:
              ansible_host: nas1.example.com
            nas2:
              ansible_host: nas2.example.com
              stor_key_file: keys/nas2.key
        site_b:
          hosts:
            nas2:
            nas3:
              ansible_host: nas3.example.com
`;

const INI = `
# the same fleet
web1 ansible_host=10.0.0.9

[site_a]
nas1 ansible_host=nas1.example.com
nas2 ansible_host=nas2.example.com stor_key_file=keys/nas2.key

[site_b]
nas2
nas3 ansible_host="nas3.example.com"  # a comment

[storage:children]
site_a
site_b

[storage:vars]
stor_key_file=keys/default.key
stor_rpc=http

[site_a:vars]
stor_key_file = keys/site_a.key

[all:vars]
stor_url="wss://{{ ansible_host }}"
stor_rpc=ws
`;

describe('Ansible inventory', () => {
  for (const [format, read] of [
    ['YAML', () => fromYaml(YAML)],
    ['INI', () => fromIni(INI)],
  ] as const) {
    it(`${format}: hosts with their groups (ancestors included) and variables merged from all down to the host`, () => {
      const hosts = read();
      const byName = Object.fromEntries(hosts.map((h) => [h.name, h]));
      expect(Object.keys(byName).sort()).toEqual(['nas1', 'nas2', 'nas3', 'web1']);
      expect(byName.nas1!.groups).toEqual(['site_a', 'storage']);
      expect(byName.nas2!.groups).toEqual(['site_a', 'site_b', 'storage']);
      expect(byName.web1!.groups).toEqual([]);
      // site_a (deeper) over storage over all; the host's own over every group.
      expect(byName.nas1!.vars).toMatchObject({
        stor_url: 'wss://nas1.example.com',
        stor_key_file: 'keys/site_a.key',
        stor_rpc: 'http',
      });
      expect(byName.nas2!.vars).toMatchObject({ stor_url: 'wss://nas2.example.com', stor_key_file: 'keys/nas2.key' });
      // nas3 is in site_b only, which sets no key: storage's.
      expect(byName.nas3!.vars).toMatchObject({
        stor_url: 'wss://nas3.example.com',
        stor_key_file: 'keys/default.key',
      });
      expect(byName.web1!.vars).toMatchObject({ stor_url: 'wss://10.0.0.9', stor_rpc: 'ws' });
    });
  }

  it('INI host-line values are Python literals, [group:vars] values strings', () => {
    const [host] = fromIni('[g]\nh port=22 on=True off=false name="a b" none=None\n[g:vars]\nn=5\n');
    expect(host!.vars).toMatchObject({ port: 22, on: true, off: false, name: 'a b', none: null, n: '5' });
  });

  it('a group in two places of a YAML inventory is one group; a host without a group is in ungrouped', () => {
    const hosts = fromYaml(
      'all:\n  hosts:\n    lone:\n  children:\n    a:\n      hosts:\n        h1:\nb:\n  children:\n    a:\n      vars:\n        x: 1\n',
    );
    expect(hosts.map((h) => [h.name, h.groups, h.vars.x])).toEqual([
      ['lone', [], undefined],
      ['h1', ['a', 'b'], 1],
    ]);
  });

  it('refuses what it would read wrong: host ranges, Jinja beyond a variable, an undefined variable, a group cycle, a bad section', () => {
    expect(() => fromIni('[g]\nnas[01:20]\n')).toThrow('host ranges are not expanded');
    expect(() => fromIni('[g]\nh stor_url="wss://{{ ansible_host | default(1) }}"\n')).toThrow(
      'only {{ variable }} is understood',
    );
    expect(() => fromIni('[g]\nh stor_url="wss://{{ ansible_host }}"\n')).toThrow(
      'refers to ansible_host, which the host does not define',
    );
    expect(() => fromIni('[a:children]\nb\n[b:children]\na\n[b]\nh\n')).toThrow('its own descendant');
    expect(() => fromIni('[g:hosts]\nh\n')).toThrow('is not [group], [group:vars] or [group:children]');
    expect(() => fromIni('[g]\nh novalue\n')).toThrow('line 2: host h: word 2 is not key=value');
    expect(() => fromYaml('all:\n  hosts: [a, b]\n')).toThrow('all.hosts: a mapping of host names');
  });

  it('shellWords splits as shlex with comments: quotes group, # outside a word ends the line', () => {
    expect(shellWords(`h a="x y" b='#z' c=d#e # gone`)).toEqual(['h', 'a=x y', 'b=#z', 'c=d#e']);
  });
});
