/**
 * A one-time code replayed right after the login it served. 25.10.1 checks the
 * code with pyotp's `TOTP.verify(token, valid_window=window)` (MW/plugins/account_/2fa.py:112-116),
 * which keeps no record of codes already used, and `auth.login_ex` OTP_TOKEN asks nothing else
 * (MW/plugins/auth.py:978-996); the one-time passwords that ARE refused on reuse are the other
 * kind, auth.generate_onetime_password's (OTPW_MANAGER, MW/utils/auth.py:174-199). So the emulator
 * accepts the replay as the appliance does, and the CLI's side of it is never to send a code twice.
 */
import { describe, expect, it } from 'vitest';
import { createUserWithPassword, enableTwoFactor } from '../../../helpers/appliance.js';
import { spawnStor } from '../../../helpers/bin.js';
import { clientEnv } from '../../../helpers/client-env.js';
import { connectWs, startTestServer } from '../../../helpers/server.js';
import { startStandinAppliance } from '../../../helpers/standin-appliance.js';
import { currentCode } from '../../../helpers/totp.js';

const PASSWORD = 'pw-olga-1';
const NO_INFO = { user_info: false };

describe('one-time codes (MW/plugins/account_/2fa.py:112-116)', () => {
  it('a code replayed right after a password login is accepted again, as 25.10.1`s pyotp check keeps no record of used codes', async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    await createUserWithPassword(t, 'olga', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    const secret = await enableTwoFactor(t, 'olga');
    const code = currentCode(secret);
    for (const round of ['first', 'replayed']) {
      const ws = await connectWs(server.rpcUrl);
      expect(
        await ws.result('auth.login_ex', [
          { mechanism: 'PASSWORD_PLAIN', username: 'olga', password: PASSWORD, login_options: NO_INFO },
        ]),
        round,
      ).toEqual({
        response_type: 'OTP_REQUIRED',
        username: 'olga',
      });
      expect(
        await ws.result('auth.login_ex_continue', [{ mechanism: 'OTP_TOKEN', otp_token: code }]),
        round,
      ).toMatchObject({ response_type: 'SUCCESS' });
    }
  });

  it('stor login sends a piped one-time code once: when the appliance asks again it gives up rather than resend it', async () => {
    const sent: string[] = [];
    const nas = await startStandinAppliance({
      'auth.login_ex': (params) => {
        const data = params[0] as { mechanism: string; otp_token?: string };
        if (data.mechanism === 'OTP_TOKEN') sent.push(data.otp_token!);
        // Every answer asks for a code again, as 25.10.1 does after a wrong one (three times).
        return { result: { response_type: 'OTP_REQUIRED', username: 'olga' } };
      },
    });
    const login = await spawnStor(['login', '--url', nas.baseUrl, '--username', 'olga', '--password-stdin'], {
      env: clientEnv(),
      stdin: `${PASSWORD}\n123456\n`,
    });
    expect(login.code).not.toBe(0);
    expect(login.stderr).toContain('rejected the one-time code for olga');
    expect(sent).toEqual(['123456']);
  });
});
