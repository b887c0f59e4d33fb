/**
 * service.update reads a name of digits as an id: `id_or_name.isdigit()` and `int(id_or_name)`
 * (MW/plugins/service.py:128-131), which take any Unicode decimal digits, `٤` (Arabic-Indic four) as 4.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer } from '../../../helpers/server.js';

describe('service.update of an id in other digits (MW/plugins/service.py:128-131)', () => {
  it('updates record 4 (cifs) for ٤ and answers its id', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    const reply = await ws.call('service.update', ['٤', { enable: true }]);
    expect(reply.error).toBeUndefined();
    expect(reply.result).toBe(4);
    const cifs = await ws.call('service.query', [[['service', '=', 'cifs']], { get: true }]);
    expect(cifs.result).toMatchObject({ id: 4, enable: true });
  });
});
