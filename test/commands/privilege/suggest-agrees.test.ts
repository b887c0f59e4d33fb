import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';

/** An embedded appliance with the given role expansion (docs/COMMANDS.md "The two 25.10.1 defects"). */
function target(roleExpansion: 'terminating' | 'truenas-25.10.1' | 'as-reported') {
  const env = clientEnv();
  Appliance.open({ stateDir: env.STOR_HOME!, settings: { roleExpansion } }).close();
  return (args: string[]) => runStor(args, { env });
}

// One analysis (healthOf: core/roles/analyze.ts breaksLogin and its findings) for what suggest
// proposes and what create says of the same list.
describe('privilege suggest says of its roles what privilege create would', () => {
  for (const roleExpansion of ['terminating', 'truenas-25.10.1', 'as-reported'] as const) {
    it(`on the emulator (${roleExpansion}): locks_out as create judges it, and create's warnings`, async () => {
      const run = target(roleExpansion);
      const suggested = await run(['privilege', 'suggest', '--methods', 'privilege.update', '--json']);
      expect(suggested.code, suggested.stderr).toBe(0);
      const s = JSON.parse(suggested.stdout) as { roles: string[]; locks_out: boolean; warnings: string[] };
      expect(s.roles).toEqual(['PRIVILEGE_WRITE']);
      const created = await run(['privilege', 'create', 'x', '--roles', s.roles.join(','), '--json']);
      // create refuses exactly what locks out (ROLE_LIST_LOCKS_OUT), else saves it with its warnings.
      expect(created.code === 1, created.stderr).toBe(s.locks_out);
      if (!s.locks_out) {
        const warning = created.stderr.replace(/^stor: warning: /, '').split('; the smallest')[0]!;
        expect(warning).toContain('PRIVILEGE_WRITE includes itself');
        expect(s.warnings).toContain(warning);
        expect(suggested.stderr).toContain(warning);
      }
    });
  }
});
