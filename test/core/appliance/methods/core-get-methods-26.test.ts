/**
 * core.get_methods as 26.0 answers it (MW = src/middlewared/middlewared at stable/26, the same at
 * TS-26.0.0-BETA.3): each entry is built once for the methods cache (MW/service/core_service.py:259-380)
 * with 26's keys: `no_authz_required` and `cli_private` where 25.10.1 had `item_method` and
 * `require_websocket` (TS-25.10.1 MW/service/core_service.py:364-380). The CLI target leaves out the
 * methods marked cli_private (core_service.py:413-414): auth.py's logins and logout (MW/plugins/auth.py:585,
 * 727, 757, 1039, 1074, 1087); 25.10.1 marks auth.login_ex alone (TS-25.10.1 MW/plugins/auth.py:680).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance } from '../../../helpers/appliance.js';

type Entry = Record<string, unknown>;

// MW/service/core_service.py:362-378, in that order.
const KEYS_26 = [
  'description',
  'cli_description',
  'examples',
  'no_auth_required',
  'no_authz_required',
  'cli_private',
  'filterable',
  'filterable_schema',
  'pass_application',
  'job',
  'downloadable',
  'uploadable',
  'check_pipes',
  'roles',
  'accepts',
  'returns',
];

describe('core.get_methods on 26.0 (MW/service/core_service.py:259-420)', () => {
  it("each entry in 26's keys and order, no_authz_required and cli_private from the method's decorator", async () => {
    const t = await openTestAppliance(EMULATIONS['truenas-26.0']);
    const all = await t.call<Record<string, Entry>>(t.admin, 'core.get_methods');
    for (const [name, entry] of Object.entries(all)) expect(Object.keys(entry), name).toEqual(KEYS_26);
    // authorization_required=False sets _no_authz_required (MW/api/base/decorator.py:239-243):
    // core.get_jobs (MW/service/core_service.py:118); authentication_required=False sets
    // _no_auth_required alone (:245-246): core.ping.
    expect(all['core.get_jobs']).toMatchObject({ no_auth_required: false, no_authz_required: true });
    expect(all['core.ping']).toMatchObject({ no_auth_required: true, no_authz_required: false });
    expect(all['privilege.create']).toMatchObject({ no_authz_required: false, cli_private: false });
    expect(all['auth.login_ex']).toMatchObject({ cli_private: true });
    expect(all['auth.logout']).toMatchObject({ cli_private: true, no_authz_required: true });
    expect(all['auth.me']).toMatchObject({ cli_private: false });
  });

  it('the CLI target leaves out the cli_private methods, WS lists them', async () => {
    const t = await openTestAppliance(EMULATIONS['truenas-26.0']);
    const cli = await t.call<Record<string, Entry>>(t.admin, 'core.get_methods', null, 'CLI');
    const ws = await t.call<Record<string, Entry>>(t.admin, 'core.get_methods', null, 'WS');
    for (const name of ['auth.login_ex', 'auth.login_ex_continue', 'auth.logout']) {
      expect(ws).toHaveProperty([name]);
      expect(cli).not.toHaveProperty([name]);
    }
    expect(cli).toHaveProperty(['auth.me']);
  });

  it('25.10.1 keeps its keys, and its CLI target leaves out auth.login_ex (TS-25.10.1 MW/plugins/auth.py:680)', async () => {
    const t = await openTestAppliance(EMULATIONS['truenas-25.10.1']);
    const all = await t.call<Record<string, Entry>>(t.admin, 'core.get_methods');
    expect(Object.keys(all['core.ping']!)).toContain('require_websocket');
    expect(Object.keys(all['core.ping']!)).not.toContain('cli_private');
    const cli = await t.call<Record<string, Entry>>(t.admin, 'core.get_methods', null, 'CLI');
    expect(cli).not.toHaveProperty(['auth.login_ex']);
    expect(cli).toHaveProperty(['auth.logout']);
  });
});
