import { expect, it } from 'vitest';

// The contract's schemas are built on first use (contract/method.ts defineContract, `once`): a
// command uses a handful of methods, and building every schema at load cost a cold remote whoami
// tens of milliseconds (bench/HISTORY.md, 2026-11-30). zod calls its post-processor hook once per
// schema it constructs (node_modules/zod/v4/core/core.js, `$constructor`); it counts them here.
it('loading the contract, its later releases and the typed client builds no zod schema', async () => {
  const holder = globalThis as { __zod_globalConfig?: { postProcessor?: (inst: unknown) => void } };
  const config = (holder.__zod_globalConfig ??= {});
  const built: string[] = [];
  config.postProcessor = (inst) => {
    built.push((inst as { _zod: { def: { type: string } } })._zod.def.type);
  };
  try {
    await import('../../../src/core/contract/client.js');
    await import('../../../src/core/releases/index.js');
  } finally {
    delete config.postProcessor;
  }
  expect(built).toEqual([]);
});
