/**
 * resolve_hostnames (MW/plugins/nfs.py:758-793): a host that is no IP address to Python's
 * `ipaddress` (the IpAddress validator, MW/validators.py:63-68) goes to `dnsclient.forward_lookup`,
 * a DNS query (MW/plugins/dns_client.py:87-124), which never reads `127.1` or `010.0.0.1` as an
 * address the way the C library's inet_aton does: no such name exists, so the host does not resolve
 * and validate says `Unable to resolve host` (MW/plugins/nfs.py:888-894).
 */
import { describe, expect, it } from 'vitest';
import { resolveHostnames } from '../../../../src/core/appliance/shares/nfs-hosts.js';

describe('resolveHostnames: numbers only an inet_aton reads as addresses', () => {
  it('resolves none of 127.1, 010.0.0.1, 2130706433 and 0x7f.0.0.1', async () => {
    const names = ['127.1', '010.0.0.1', '2130706433', '0x7f.0.0.1'];
    const resolved = await resolveHostnames(names);
    expect(Object.fromEntries(resolved)).toEqual(Object.fromEntries(names.map((n) => [n, null])));
  });

  it('answers an address Python parses as itself', async () => {
    const resolved = await resolveHostnames(['10.0.0.1', 'fe80::1%eth0']);
    expect(Object.fromEntries(resolved)).toEqual({ '10.0.0.1': '10.0.0.1', 'fe80::1%eth0': 'fe80::1%eth0' });
  });
});
