import { queryItems } from '../../core/contract/client.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import {
  catalogueFromPrivilegeRoles,
  includedByDirectly,
  includedByInTotal,
  includesInTotal,
  inclusionTree,
  topRoles,
  type RoleCatalogue,
  type RoleTreeNode,
  type TreeMark,
} from '../../core/roles/index.js';
import type { CommandContext } from '../framework/context.js';
import { type CommandResult, recordResult, tableResult, type View } from '../output/render.js';
import { arg, defineCommand, flag } from '../framework/declare.js';

/** One row of `stor privilege roles --json`. */
export interface RoleSummary {
  name: string;
  title: string;
  builtin: boolean;
  /** The roles it lists itself. */
  includes: string[];
  includes_directly: number;
  /** Everything it grants besides itself (itself too when it includes itself). */
  includes_in_total: number;
  self_including: boolean;
}

/** `stor privilege roles ROLE --json`. */
export interface RoleDetail {
  name: string;
  title: string;
  builtin: boolean;
  /** Grants every role (FULL_ADMIN); the appliance never expands its include list. */
  full_admin: boolean;
  self_including: boolean;
  includes: { directly: string[]; in_total: string[] };
  included_by: { directly: string[]; in_total: string[] };
  /** With `--tree`. */
  tree?: RoleTreeNode;
}

/** `stor privilege roles --json`: the catalogue; with `--tree`, the trees of the roles nothing includes. */
export type PrivilegeRolesResult = RoleSummary[] | RoleTreeNode[] | RoleDetail;

const MARKS: Record<TreeMark, string> = {
  self: 'includes itself',
  cycle: 'cycle: already above',
  'full-admin': 'grants every role',
  unknown: 'not in the catalogue',
};

/** The tree as indented lines with branch glyphs, each mark in brackets after its role. */
export function drawTree(node: RoleTreeNode, lead = '', branch = ''): string[] {
  const line = `${lead}${branch}${node.role}${node.mark ? `  [${MARKS[node.mark]}]` : ''}`;
  const childLead = lead + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
  return [
    line,
    ...node.children.flatMap((c, i) => drawTree(c, childLead, i === node.children.length - 1 ? '└─ ' : '├─ ')),
  ];
}

const treeView = (trees: RoleTreeNode[]): View => ({
  kind: 'table',
  columns: ['inclusion tree'],
  rows: trees.flatMap((t) => drawTree(t)).map((l) => [l]),
});

function detail(catalogue: RoleCatalogue, titles: Map<string, string>, name: string, tree: boolean): RoleDetail {
  const def = catalogue.get(name)!;
  return {
    name,
    title: titles.get(name) ?? name,
    builtin: def.builtin,
    full_admin: def.fullAdmin,
    self_including: catalogue.isSelfIncluding(name),
    includes: { directly: [...def.includes], in_total: includesInTotal(catalogue, name).sort() },
    included_by: { directly: includedByDirectly(catalogue, name), in_total: includedByInTotal(catalogue, name) },
    ...(tree ? { tree: inclusionTree(catalogue, name) } : {}),
  };
}

export async function privilegeRoles(
  ctx: CommandContext,
  role: string | undefined,
  tree: boolean,
): Promise<CommandResult<PrivilegeRolesResult>> {
  const t = await ctx.transport();
  const entries = await queryItems(t, 'privilege.roles', ['name', 'title', 'includes', 'builtin']);
  const catalogue = catalogueFromPrivilegeRoles(entries);
  const titles = new Map(entries.map((e) => [e.name, e.title]));
  if (role === undefined) {
    if (tree) {
      const trees = topRoles(catalogue).map((r) => inclusionTree(catalogue, r));
      return { data: trees, view: treeView(trees) };
    }
    const data: RoleSummary[] = catalogue.names.map((name) => {
      const def = catalogue.get(name)!;
      return {
        name,
        title: titles.get(name) ?? name,
        builtin: def.builtin,
        includes: [...def.includes],
        includes_directly: def.includes.length,
        includes_in_total: includesInTotal(catalogue, name).length,
        self_including: catalogue.isSelfIncluding(name),
      };
    });
    return tableResult(data, {
      columns: ['role', 'includes', 'in total', 'builtin', 'includes itself'],
      rows: data.map((r) => [r.name, r.includes_directly, r.includes_in_total, r.builtin, r.self_including]),
      empty: 'The target lists no roles.',
    });
  }
  if (!catalogue.has(role)) {
    throw new StorError(E.UNKNOWN_ROLE, `not a role of this appliance: ${role}`, {
      hint: '`stor privilege roles` lists them',
    });
  }
  const data = detail(catalogue, titles, role, tree);
  if (data.tree) return { data, view: treeView([data.tree]) };
  return recordResult(data, {
    heading: `Role ${role}`,
    fields: [
      ['title', data.title],
      ['builtin', data.builtin],
      ['full admin', data.full_admin],
      ['includes itself', data.self_including],
      ['includes directly', data.includes.directly],
      ['includes in total', data.includes.in_total],
      ['included by directly', data.included_by.directly],
      ['included by in total', data.included_by.in_total],
    ],
  });
}

export const privilegeRolesCommand = defineCommand({
  summary: "the target's role catalogue: what a role includes directly and in total, and which roles include it",
  effect: 'read',
  fanOut: 'read',
  args: { role: arg.optional('a role name') },
  options: { tree: flag('draw the inclusion tree (self-inclusion and cycles marked)') },
  examples: [
    'stor privilege roles',
    'stor privilege roles READONLY_ADMIN',
    'stor privilege roles PRIVILEGE_WRITE --tree',
    'stor privilege roles --json',
  ],
  notes:
    'Read from the target with privilege.roles. FULL_ADMIN grants every role, so it is among the roles that include any role in total.',
  run: (ctx, { role }, opts) => privilegeRoles(ctx, role, opts.tree),
});
