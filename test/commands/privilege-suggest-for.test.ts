import { describe, expect, it } from 'vitest';
import { allCommands } from '../../src/commands/index.js';
import { clientEnv } from '../helpers/client-env.js';
import { runStor } from '../helpers/run-stor.js';

// docs/COMMANDS.md "Least privilege": --for takes every stor verb that declares the methods it calls.
describe('privilege suggest --for', () => {
  it('accepts every verb of the command tree that declares its calls, accounts and keys among them', async () => {
    const declaring = [...(await allCommands())].filter(([, spec]) => spec.calls).map(([words]) => words);
    for (const words of ['user list', 'user create', 'group delete', 'api-key create', 'privilege show', 'privilege create']) expect(declaring).toContain(words);
    const r = await runStor(['privilege', 'suggest', '--for', declaring.join(', '), '--json'], { env: clientEnv() });
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout) as { methods: { method: string; commands: string[] }[] };
    const covered = new Set(answer.methods.flatMap((m) => m.commands));
    expect([...covered].sort()).toEqual([...declaring].sort());
  });
});
