/**
 * keychaincredential.remote_ssh_host_key_scan against another `stor serve` on loopback: what
 * `ssh-keyscan -p PORT -T TIMEOUT HOST` finds there, each line without its host field
 * (MW/plugins/keychain.py:240-241, 497-527), so the answer fills an SSH_CREDENTIALS'
 * `remote_host_key` as on a real pair of appliances (docs/REPLICATION.md).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { startTestServer } from '../../../helpers/server.js';

const settings = { ...EMULATIONS['truenas-25.10.1'], keyLogin: 'plain' as const };

describe('keychaincredential.remote_ssh_host_key_scan', () => {
  it('answers the host key another stor serve on loopback proves, as ssh-keyscan lists it without the host', async () => {
    const source = await startTestServer(settings);
    const target = await startTestServer(settings);
    const s = source.testAppliance;
    const t = target.testAppliance;
    // Its SSH service runs (stopped on a new appliance, where ssh-keyscan finds nothing).
    await t.call(t.admin, 'core.set_options', { legacy_jobs: false });
    await t.call(t.admin, 'service.control', 'START', 'ssh');
    const expected = (await (await fetch(`${target.url}/_stor/zfs/host-key`)).text()).trim();
    expect(expected).toMatch(/^ssh-ed25519 AAAA\S+$/);
    expect(
      await s.call(s.admin, 'keychaincredential.remote_ssh_host_key_scan', { host: '127.0.0.1', port: target.port }),
    ).toBe(expected);
  });

  it('a port nothing listens on fails as ssh-keyscan does there (exit 1, nothing printed)', async () => {
    const source = await startTestServer(settings);
    const gone = await startTestServer(settings);
    await gone.close();
    const s = source.testAppliance;
    const err = await s.callError(s.admin, 'keychaincredential.remote_ssh_host_key_scan', {
      host: '127.0.0.1',
      port: gone.port,
    });
    expect(err.data?.reason).toBe('[EFAULT] ssh-keyscan failed: ');
  });

  it('a stor serve whose SSH service is stopped answers no key, as a host with no sshd', async () => {
    const source = await startTestServer(settings);
    const target = await startTestServer(settings);
    const s = source.testAppliance;
    const err = await s.callError(s.admin, 'keychaincredential.remote_ssh_host_key_scan', {
      host: '127.0.0.1',
      port: target.port,
    });
    expect(err.data?.reason).toBe('[EFAULT] ssh-keyscan failed: ');
  });

  it('a host off loopback is still not scanned: the emulator connects to no other machine', async () => {
    const source = await startTestServer(settings);
    const s = source.testAppliance;
    const err = await s.callError(s.admin, 'keychaincredential.remote_ssh_host_key_scan', { host: 'nas2.example' });
    expect(err.errname).toBe('EOPNOTSUPP');
  });
});
