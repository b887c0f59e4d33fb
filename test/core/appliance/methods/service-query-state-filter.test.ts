/**
 * service.query with a filter on `state` or `pids` reads every record with its state and filters
 * after (MW/plugins/service.py:108-110): `extra.include_state` false, which otherwise leaves the
 * state UNKNOWN (:45-47, :90-91), does not reach that read.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer } from '../../../helpers/server.js';

describe('service.query filtering on state (MW/plugins/service.py:93-112)', () => {
  it('finds a running service by its state even with include_state false', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    expect((await ws.call('service.start', ['nfs'])).error).toBeUndefined();
    const noState = { extra: { include_state: false } };
    const running = await ws.call('service.query', [[['state', '=', 'RUNNING']], noState]);
    expect(running.result).toEqual([{ id: 9, service: 'nfs', enable: false, state: 'RUNNING', pids: [] }]);
    // Without a filter on state, include_state false leaves it UNKNOWN.
    const all = await ws.call('service.query', [[['service', '=', 'nfs']], noState]);
    expect(all.result).toEqual([{ id: 9, service: 'nfs', enable: false, state: 'UNKNOWN', pids: [] }]);
  });
});
