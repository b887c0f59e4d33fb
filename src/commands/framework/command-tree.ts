import type { CommandSpec } from './declare.js';

/**
 * Every verb's declaration by its command words (`dataset create`), for a verb that reads the
 * others' declarations (`privilege suggest --for`). The command table (`commands/index.ts`)
 * registers its loader when it loads, so that such a verb need not import the table that lists it.
 */
export type LoadCommandTree = () => Promise<Map<string, CommandSpec<any, any, any>>>;

let loadTree: LoadCommandTree | undefined;

export function registerCommandTree(load: LoadCommandTree): void {
  loadTree = load;
}

export async function commandTree(): Promise<Map<string, CommandSpec<any, any, any>>> {
  if (!loadTree) throw new Error('the command table is not loaded');
  return loadTree();
}
