/**
 * `stor privilege suggest` of a method named like a JavaScript object property is METHOD_NOT_FOUND.
 * The test failed before its fix. The built binary against a real `stor serve` process.
 */
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { serveStoppedAfterAll, envOf } from '../../helpers/served.js';

const serve = serveStoppedAfterAll();

describe('stor privilege suggest of a method no target has', () => {
  it('constructor or __proto__ (names every object has in JavaScript) is METHOD_NOT_FOUND, not "any logged-in user may call it"', async () => {
    const server = await serve();
    const env = envOf(server);
    for (const method of ['constructor', '__proto__', 'toString']) {
      const r = await spawnStor(['privilege', 'suggest', '--methods', method, '--json'], { env });
      expect(r.code, r.stdout).toBe(1);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'METHOD_NOT_FOUND',
        message: expect.stringContaining(method),
      });
    }
  });
});
