/**
 * nfs.update with its argument left out. 26.0's `single_argument_args` gives the argument a
 * default_factory when no field of its model is required (stable/26 MW/api/base/model.py:274-286),
 * as NFSUpdateArgs' are not (ForUpdateMetaclass, MW/api/v26_0_0/nfs.py:85-89): the call changes
 * nothing and answers the settings. 25.10.1's wrapper has no default (TS-25.10.1
 * MW/api/base/model.py `single_argument_args`): `nfs_update` is required.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance } from '../../../helpers/appliance.js';

type Schema = { _name_: string; _required_: boolean; default?: unknown };

describe('nfs.update without its argument', () => {
  it('26.0: changes nothing and answers the settings; the argument is not required and shows no default', async () => {
    const t = await openTestAppliance(EMULATIONS['truenas-26.0']);
    const before = await t.call(t.admin, 'nfs.config');
    expect(await t.call(t.admin, 'nfs.update')).toEqual(before);
    expect(await t.call(t.admin, 'nfs.config')).toEqual(before);
    const all = await t.call<Record<string, { accepts: Schema[] }>>(t.admin, 'core.get_methods', 'nfs');
    const [arg] = all['nfs.update']!.accepts;
    expect(arg).toMatchObject({ _name_: 'nfs_update', _required_: false });
    // pydantic writes no `default` for a default_factory.
    expect(arg).not.toHaveProperty('default');
  });

  it('25.10.1: Field required', async () => {
    const t = await openTestAppliance(EMULATIONS['truenas-25.10.1']);
    const err = await t.callError(t.admin, 'nfs.update');
    expect(err.code).toBe(-32602);
    expect(err.data?.extra).toEqual([['nfs_update', 'Field required', 22]]);
  });
});

describe('smb.update without its argument (SMBUpdateArgs, ForUpdateMetaclass: MW/api/v26_0_0/smb.py:346-348)', () => {
  it('26.0: changes nothing and answers the configuration; 25.10.1: Field required', async () => {
    const t = await openTestAppliance(EMULATIONS['truenas-26.0']);
    const before = await t.call(t.admin, 'smb.config');
    expect(await t.call(t.admin, 'smb.update')).toEqual(before);
    const old = await openTestAppliance(EMULATIONS['truenas-25.10.1']);
    expect((await old.callError(old.admin, 'smb.update')).data?.extra).toEqual([['smb_update', 'Field required', 22]]);
  });
});
