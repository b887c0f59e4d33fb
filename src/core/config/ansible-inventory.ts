/**
 * An Ansible inventory read the way Ansible reads it, for `stor profile import` (docs/REMOTE.md
 * "Fleets: --targets"): groups, their hosts, `children` and `vars`, in the YAML and INI formats
 * (docs.ansible.com, "How to build your inventory"). Every group is a descendant of `all`; a host
 * in no group is in `ungrouped`. A host's variables are its groups' merged from the shallowest
 * (`all`) to the deepest, groups of one depth by name, then its own (Ansible's order without
 * `ansible_group_priority`). Of Jinja, in the `stor_*` variables (and `ansible_user`, read for the key's user when `stor_user` is absent), `{{ name }}` — another variable
 * of the same host, or `inventory_hostname` — is understood, so `stor_url: "wss://{{ ansible_host }}"` works as in
 * Ansible; any other expression is an error. Host ranges (`nas[01:20]`) are not expanded.
 */

/** One host: its inventory name, every group it belongs to (`all` and `ungrouped` left out), and its merged variables. */
export interface InventoryHost {
  name: string;
  groups: string[];
  vars: Record<string, unknown>;
}

interface Group {
  hosts: Map<string, Record<string, unknown>>;
  vars: Record<string, unknown>;
  children: Set<string>;
}

export class InventoryError extends Error {}

type Groups = Map<string, Group>;

function group(groups: Groups, name: string): Group {
  let g = groups.get(name);
  if (!g) {
    g = { hosts: new Map(), vars: {}, children: new Set() };
    groups.set(name, g);
  }
  return g;
}

function addHost(groups: Groups, groupName: string, host: string, vars: Record<string, unknown>): void {
  if (/\[[^\]]*:[^\]]*\]/.test(host))
    throw new InventoryError(`host ${host}: host ranges are not expanded; list each host`);
  const hosts = group(groups, groupName).hosts;
  hosts.set(host, { ...(hosts.get(host) ?? {}), ...vars });
}

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The YAML format: top-level groups (usually `all`), each `{hosts, vars, children}`, children nested the same way. */
export function groupsFromYaml(doc: Record<string, unknown>): Groups {
  const groups: Groups = new Map();
  // The bodies being walked: a YAML alias can make a group's children hold the group itself
  // (`children: &x {site: {children: *x}}`), a loop that would otherwise recurse until the stack ends.
  const open: unknown[] = [];
  const walk = (name: string, body: unknown, where: string) => {
    group(groups, name);
    if (body === null || body === undefined) return;
    if (!isMapping(body)) throw new InventoryError(`${where}: a group is a mapping of hosts, vars and children`);
    if (open.includes(body)) throw new InventoryError(`group ${name} is its own descendant (${where})`);
    open.push(body);
    for (const key of Object.keys(body))
      if (!['hosts', 'vars', 'children'].includes(key))
        throw new InventoryError(`${where}.${key}: a group holds only hosts, vars and children`);
    const { hosts, vars, children } = body;
    if (hosts !== undefined && hosts !== null) {
      if (!isMapping(hosts)) throw new InventoryError(`${where}.hosts: a mapping of host names`);
      for (const [host, hv] of Object.entries(hosts)) {
        if (hv !== null && !isMapping(hv))
          throw new InventoryError(`${where}.hosts.${host}: host variables are a mapping`);
        addHost(groups, name, host, hv ?? {});
      }
    }
    if (vars !== undefined && vars !== null) {
      if (!isMapping(vars)) throw new InventoryError(`${where}.vars: a mapping`);
      Object.assign(group(groups, name).vars, vars);
    }
    if (children !== undefined && children !== null) {
      if (!isMapping(children)) throw new InventoryError(`${where}.children: a mapping of group names`);
      for (const [child, cb] of Object.entries(children)) {
        group(groups, name).children.add(child);
        walk(child, cb, `${where}.children.${child}`);
      }
    }
    open.pop();
  };
  for (const [name, body] of Object.entries(doc)) walk(name, body, name);
  return groups;
}

/** A value given on a host line: Python literals as Ansible reads them (`ast.literal_eval`), else the text. */
function hostLineValue(text: string): unknown {
  if (text === 'True' || text === 'true') return true;
  if (text === 'False' || text === 'false') return false;
  if (text === 'None') return null;
  if (/^-?\d+$/.test(text)) return Number(text);
  return text;
}

/** Words of a host line as Python's `shlex.split(line, comments=True)` gives them: quotes group, `#` outside quotes ends the line. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"' || c === "'") {
      const end = line.indexOf(c, i + 1);
      // The line is not echoed: it may hold a password (`ansible_password="…`).
      if (end < 0) throw new InventoryError(`a ${c} quote is not closed`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === '#' && word === null) {
      break;
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** The value of a `[group:vars]` line: a string (Ansible's INI docs), surrounding quotes taken off. */
const varsValue = (text: string): string => (/^(['"]).*\1$/.test(text) && text.length >= 2 ? text.slice(1, -1) : text);

/**
 * The INI format: `[group]` sections of host lines (`name key=value …`), `[group:vars]` of
 * `key=value` lines, `[group:children]` of group names; hosts before any section are `ungrouped`;
 * lines starting with `#` or `;` are comments.
 */
export function groupsFromIni(text: string): Groups {
  const groups: Groups = new Map();
  let section = 'ungrouped';
  let kind: 'hosts' | 'vars' | 'children' = 'hosts';
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    const where = `line ${i + 1}`;
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      const [name, suffix, extra] = header[1]!.split(':');
      if (extra !== undefined || (suffix !== undefined && suffix !== 'vars' && suffix !== 'children'))
        throw new InventoryError(`${where}: [${header[1]}] is not [group], [group:vars] or [group:children]`);
      section = name!.trim();
      kind = (suffix as 'vars' | 'children' | undefined) ?? 'hosts';
      group(groups, section);
      return;
    }
    if (kind === 'children') {
      group(groups, section).children.add(line);
      group(groups, line);
    } else if (kind === 'vars') {
      const eq = line.indexOf('=');
      if (eq <= 0) throw new InventoryError(`${where}: [${section}:vars] holds key=value lines`);
      group(groups, section).vars[line.slice(0, eq).trim()] = varsValue(line.slice(eq + 1).trim());
    } else {
      let words: string[];
      try {
        words = shellWords(line);
      } catch (err) {
        throw err instanceof InventoryError ? new InventoryError(`${where}: ${err.message}`) : err;
      }
      const [host, ...pairs] = words;
      if (host === undefined) return;
      const vars: Record<string, unknown> = {};
      for (const [i, pair] of pairs.entries()) {
        const eq = pair.indexOf('=');
        // Named by its place, not echoed: a word of an unquoted password with a space would be.
        if (eq <= 0)
          throw new InventoryError(
            `${where}: host ${host}: word ${i + 2} is not key=value${i > 0 ? ` (it follows ${pairs[i - 1]!.split('=')[0]}=…; quote a value with spaces)` : ''}`,
          );
        vars[pair.slice(0, eq)] = hostLineValue(pair.slice(eq + 1));
      }
      addHost(groups, section, host, vars);
    }
  });
  return groups;
}

const TEMPLATE = /\{\{(.*?)\}\}/g;

/** The most a filled-in variable may hold: a URL or a path, never near this. */
const MAX_RENDERED = 64 * 1024;

/**
 * `{{ name }}` replaced by the host's variable; nothing else of Jinja is understood. Each variable
 * is filled in once per host (`done`), and a value past MAX_RENDERED is refused: variables that
 * each name the next thirty times would otherwise multiply to 30^depth copies.
 */
function rendered(
  value: unknown,
  vars: Record<string, unknown>,
  host: string,
  key: string,
  done: Map<string, string>,
  depth = 0,
): unknown {
  if (typeof value !== 'string' || !value.includes('{{')) return value;
  if (depth > 10) throw new InventoryError(`host ${host}: ${key} refers to itself`);
  const out = value.replace(TEMPLATE, (_m, expr: string) => {
    const name = expr.trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new InventoryError(`host ${host}: ${key}: only {{ variable }} is understood, not {{${expr}}}`);
    // Own variables only: `constructor` or `toString` is in every object, and no variable of the host's.
    if (!Object.hasOwn(vars, name))
      throw new InventoryError(`host ${host}: ${key} refers to ${name}, which the host does not define`);
    if (!done.has(name)) done.set(name, String(rendered(vars[name], vars, host, name, done, depth + 1)));
    return done.get(name)!;
  });
  if (out.length > MAX_RENDERED)
    throw new InventoryError(`host ${host}: ${key} fills in to more than ${MAX_RENDERED} characters`);
  return out;
}

/** How deep groups may nest below `all` (inventories nest a handful of levels). */
const MAX_NESTING = 1000;

/**
 * Names as Python sorts them, code point by code point (UTF-8 bytes compare so): Ansible's
 * sort_groups (lib/ansible/inventory/helpers.py) keys groups by name so. Never a locale's collation,
 * which puts `lab` before `Prod` and changes with LANG.
 */
function pythonOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The variables `profile import` reads: `stor_*`, and `ansible_user` where no `stor_user` names the key's user. */
const readByStor = (key: string, vars: Record<string, unknown>): boolean =>
  key.startsWith('stor_') || (key === 'ansible_user' && !Object.hasOwn(vars, 'stor_user'));

/** Every host of the inventory, in the order first listed, with its groups and merged variables. */
export function inventoryHosts(groups: Groups): InventoryHost[] {
  group(groups, 'all');
  // Every group no other group lists is a child of `all` (Ansible's implicit parent).
  const listed = new Set([...groups.values()].flatMap((g) => [...g.children]));
  for (const name of groups.keys()) if (name !== 'all' && !listed.has(name)) groups.get('all')!.children.add(name);
  const parents = new Map<string, string[]>();
  for (const [name, g] of groups) for (const c of g.children) parents.set(c, [...(parents.get(c) ?? []), name]);
  const depths = new Map<string, number>();
  const depth = (name: string, path: string[] = []): number => {
    if (path.includes(name))
      throw new InventoryError(`group ${name} is its own descendant (${[...path, name].join(' → ')})`);
    // Bounded: the walks below recurse once per level, and a file of 20000 nested groups would end the stack.
    if (path.length > MAX_NESTING)
      throw new InventoryError(`group ${name} is nested more than ${MAX_NESTING} groups deep`);
    if (!depths.has(name))
      depths.set(
        name,
        name === 'all' ? 0 : 1 + Math.max(0, ...(parents.get(name) ?? ['all']).map((p) => depth(p, [...path, name]))),
      );
    const d = depths.get(name)!;
    if (d > MAX_NESTING) throw new InventoryError(`group ${name} is nested more than ${MAX_NESTING} groups deep`);
    return d;
  };
  // Depths first: a cycle is refused here, before any walk up the parents could loop.
  for (const name of groups.keys()) depth(name);
  // Each group's ancestors once, as a set: walked path by path, a ladder of groups with two parents
  // each has 2^depth paths (an inventory 40 deep would never finish).
  const lineage = new Map<string, Set<string>>();
  const ancestors = (name: string): Set<string> => {
    let found = lineage.get(name);
    if (!found) {
      found = new Set([name]);
      for (const p of parents.get(name) ?? []) for (const a of ancestors(p)) found.add(a);
      lineage.set(name, found);
    }
    return found;
  };

  const hostOrder: string[] = [];
  const direct = new Map<string, string[]>();
  for (const [name, g] of groups) {
    for (const host of g.hosts.keys()) {
      if (!direct.has(host)) hostOrder.push(host);
      direct.set(host, [...(direct.get(host) ?? []), name]);
    }
  }
  return hostOrder.map((host) => {
    const all = [...new Set(direct.get(host)!.flatMap((g) => [...ancestors(g)]))].sort(
      (a, b) => depth(a) - depth(b) || pythonOrder(a, b),
    );
    const vars: Record<string, unknown> = { inventory_hostname: host };
    for (const g of all) Object.assign(vars, groups.get(g)!.vars);
    for (const g of direct.get(host)!) Object.assign(vars, groups.get(g)!.hosts.get(host));
    // Only the variables stor reads are filled in, as Ansible fills in a variable when it is used.
    const done = new Map<string, string>();
    const out = Object.fromEntries(
      Object.entries(vars).map(([k, v]) => [k, readByStor(k, vars) ? rendered(v, vars, host, k, done) : v]),
    );
    return { name: host, groups: all.filter((g) => g !== 'all' && g !== 'ungrouped').sort(), vars: out };
  });
}
