/** `stor call --help`: the method table, one line per method. */
export async function methodHelp(): Promise<string> {
  const { METHODS } = await import('../core/appliance/methods.js');
  const access = (a: (typeof METHODS extends ReadonlyMap<string, infer M> ? M : never)['access']): string =>
    a.kind === 'public' ? 'no login' : a.kind === 'authenticated' ? 'any login' : a.roles.length ? a.roles.join('|') : 'FULL_ADMIN';
  const rows = [...METHODS.values()].map((m) => [`${m.name}(${m.params.map((p) => p.name).join(', ')})`, access(m.access), m.summary]);
  const w0 = Math.max(...rows.map((r) => r[0]!.length));
  const w1 = Math.max(...rows.map((r) => r[1]!.length));
  return rows.map(([a, b, c]) => `  ${a!.padEnd(w0)}  ${b!.padEnd(w1)}  ${c}`).join('\n');
}
