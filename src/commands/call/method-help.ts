import { call } from '../../core/contract/client.js';
import { coreMethodsItem } from '../../core/contract/core.js';
import type { CommandContext } from '../framework/context.js';
import { escapeControls } from '../output/escape.js';

/** Who may call a method, from `core.get_methods`' `no_auth_required` and `roles`. */
function access(item: { no_auth_required?: boolean; roles?: string[] }): string {
  if (item.no_auth_required) return 'no login';
  // Spaced, so that a narrow terminal wraps between roles, never inside one (`unpriv_\nroot`).
  return item.roles?.length ? item.roles.join(' | ') : 'any login';
}

/** Help goes to stdout: its width, or 80 piped (as commander's own help). */
const helpWidth = (ctx: CommandContext): number => {
  const columns = ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined;
  return columns !== undefined && columns > 0 ? columns : 80;
};

/**
 * `stor call --help`: the methods of the target, as its `core.get_methods` lists them (a real
 * appliance, or the emulator answering from its contract): one line per method with its params,
 * who may call it and its summary. When the target cannot be asked, says so on stderr and returns
 * null: the help is shown without the list.
 */
export async function methodHelp(ctx: CommandContext): Promise<string | null> {
  let methods: Record<string, unknown>;
  try {
    methods = await call(await ctx.transport(), 'core.get_methods');
  } catch (err) {
    ctx.io.stderr.write(
      `stor: cannot list the target's methods: ${escapeControls(err instanceof Error ? err.message : String(err))}\n`,
    );
    return null;
  }
  const rows = Object.entries(methods)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, raw]) => {
      const item = coreMethodsItem().safeParse(raw).data ?? {};
      const params = (item.accepts ?? []).map((p) => p._name_ ?? p.title ?? '?').join(', ');
      return [`${name}(${params})`, access(item), item.cli_description ?? ''];
    });
  if (rows.length === 0) return null;
  const target = await ctx.target();
  const where = target.kind === 'embedded' ? `the embedded appliance in ${target.stateDir}` : target.endpoint.display;
  // Fitted to the width as every table is (output/table.ts), wrapping between words, never inside
  // one: each method on its line, who may call it and its summary below, indented.
  const { fitTable } = await import('../output/table.js');
  const width = helpWidth(ctx) - 2;
  const paragraph = (text: string) =>
    fitTable([{ header: '', overflow: 'wrap', align: 'left' }], [[escapeControls(text)]], width - 4, {
      header: false,
    }).map((l) => `    ${l}`);
  // A method whose name and params outrun a narrow terminal wraps between its params, the rest
  // indented under its name (`pool.snapshottask.update_will_change_retention_for(id,` / `  data)`);
  // one whose first param still does not fit breaks after its `(` first
  // (`keychaincredential.remote_ssh_host_key_scan(` / `  keychain_remote_ssh_host_key_scan)`).
  const signature = (text: string) => {
    const open = text.indexOf('(') + 1;
    const first = text.slice(0, open);
    const wrapped = fitTable([{ header: '', overflow: 'wrap', align: 'left' }], [[escapeControls(text)]], width - 2, {
      header: false,
    });
    if (wrapped.every((l, i) => l.length <= width - (i === 0 ? 0 : 2)))
      return wrapped.map((l, i) => (i === 0 ? l : `  ${l}`));
    const params = fitTable(
      [{ header: '', overflow: 'wrap', align: 'left' }],
      [[escapeControls(text.slice(open))]],
      width - 2,
      { header: false },
    );
    return [escapeControls(first), ...params.map((l) => `  ${l}`)];
  };
  const lines = rows.flatMap(([method, who, summary]) => [
    ...(method!.length <= width ? [escapeControls(method!)] : signature(method!)),
    ...paragraph(`access: ${who}`),
    ...(summary ? paragraph(summary) : []),
  ]);
  return `Methods of ${where} (core.get_methods):\n${lines.map((l) => `  ${l}`).join('\n')}`;
}
