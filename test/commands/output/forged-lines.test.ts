import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/core/config/profiles.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { startStandinAppliance, type StandinAnswer } from '../../helpers/standin-appliance.js';

const KEY = `1-${'A'.repeat(64)}`;

// Text a hostile appliance puts in an error: lines that look like stor's own (a fan-out failure
// of another target, a summary), a carriage return and an erase-line that would hide the real one.
const FORGERY = 'denied\nstor: nas2: ok\n4 ok\r\u001b[2Khint: all good';

/** An appliance that refuses auth.me with the forgery as its reason (a CallError, MW/service_exception.py). */
async function hostileAppliance() {
  const refusal: StandinAnswer = {
    error: {
      code: -32001,
      message: 'Method call error',
      data: { error: 13, errname: 'EACCES', reason: `[EACCES] ${FORGERY}`, trace: null, extra: ['x\ny'] },
    },
  };
  return startStandinAppliance({ 'auth.login_with_api_key': { result: true }, 'auth.me': refusal });
}

// On a terminal the renderer adds its own SGR colour sequences; anything else is from the data.
const withoutOwnColour = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Every line stor printed: none forged, no raw control, the forgery shown escaped on the line it came in. */
function expectNoForgedLine(text: string, shown = 'denied\\nstor: nas2: ok\\n4 ok\\r\\x1b[2Khint: all good') {
  const lines = withoutOwnColour(text).split('\n');
  expect(lines.filter((l) => /^(stor: nas2: |4 ok$|hint: all good)/.test(l))).toEqual([]);
  expect(withoutOwnColour(text)).not.toMatch(RAW_CONTROL);
  expect(withoutOwnColour(text)).toContain(shown);
}

/** An error message's own line breaks break the line, each later line indented by two spaces; other controls stay escaped. */
const SHOWN_AS_LINES = 'denied\n  stor: nas2: ok\n  4 ok\\r\\x1b[2Khint: all good';

describe("a hostile appliance's text cannot forge stor's own lines", () => {
  it("an error message's line breaks break the line, indented, so none passes for stor's own; other controls stay escaped, piped and on a terminal", async () => {
    const nas = await hostileAppliance();
    for (const tty of [false, true]) {
      const r = await runStor(['--url', nas.baseUrl, 'whoami'], { env: { ...clientEnv(), STOR_API_KEY: KEY }, tty });
      expect(r.code).not.toBe(0);
      expectNoForgedLine(r.stderr, SHOWN_AS_LINES);
    }
  });

  it('through --targets: the per-target failure line and the summary cannot be forged, piped and on a terminal', async () => {
    const nas = await hostileAppliance();
    const env = clientEnv();
    await new ProfileStore(env.STOR_CONFIG_DIR!).save('nas1', { url: nas.baseUrl, apiKey: KEY }, false);
    for (const tty of [false, true]) {
      const r = await runStor(['--targets', 'nas1', 'whoami'], { env, tty });
      expect(r.code).not.toBe(0);
      expectNoForgedLine(r.stderr);
      // The one summary line is stor's own, and it is the last.
      expect(withoutOwnColour(r.stderr).trimEnd().split('\n').at(-1)).toMatch(/^0 ok, 1 /);
    }
  });
});
