import { call } from '../../core/contract/client.js';
import { coreMethodsItem } from '../../core/contract/core.js';
import type { CommandContext } from '../shared/context.js';
import { escapeControls } from '../shared/escape.js';

/** Who may call a method, from `core.get_methods`' `no_auth_required` and `roles`. */
function access(item: { no_auth_required?: boolean; roles?: string[] }): string {
  if (item.no_auth_required) return 'no login';
  return item.roles?.length ? item.roles.join('|') : 'any login';
}

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
    ctx.io.stderr.write(`stor: cannot list the target's methods: ${escapeControls(err instanceof Error ? err.message : String(err))}\n`);
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
  const w0 = Math.max(...rows.map((r) => r[0]!.length));
  const w1 = Math.max(...rows.map((r) => r[1]!.length));
  const target = await ctx.target();
  const where = target.kind === 'embedded' ? `the embedded appliance in ${target.stateDir}` : target.endpoint.display;
  return `Methods of ${where} (core.get_methods):\n${rows.map(([a, b, c]) => `  ${a!.padEnd(w0)}  ${b!.padEnd(w1)}  ${c}`.trimEnd()).join('\n')}`;
}
