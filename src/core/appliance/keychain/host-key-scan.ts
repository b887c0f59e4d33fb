import { ERRNO, rpcErrors } from '../../errors.js';
import { isLoopbackHost } from '../../net/loopback.js';

// keychaincredential.remote_ssh_host_key_scan (MW/plugins/keychain.py:497-527) runs
// `ssh-keyscan -p PORT -T TIMEOUT HOST` and answers its lines without their host field
// (process_ssh_keyscan_output, :240-241). The emulator's other end of a replication is another
// `stor serve` on loopback (docs/REPLICATION.md), whose host key `GET /_stor/zfs/host-key` answers
// as ssh-keyscan would list it: that is what is scanned, loopback only, as replication/remote.ts
// connects. ssh-keyscan's outcomes kept: nothing there (it exits 1, silent) fails
// `ssh-keyscan failed: `; no answer within the timeout (it exits 0, silent) fails `SSH timeout`.

/** The host key lines of the `stor serve` at host:port, as remote_ssh_host_key_scan answers them. */
export function scanHostKey(host: string, port: number, connectTimeout: number): Promise<string> {
  if (!isLoopbackHost(host))
    throw rpcErrors.call(
      ERRNO.EOPNOTSUPP,
      `keychaincredential.remote_ssh_host_key_scan is not emulated for ${host}: stor serve scans only another stor serve on loopback (127.0.0.1, ::1, localhost)`,
    );
  const failed = () => rpcErrors.call(ERRNO.EFAULT, 'ssh-keyscan failed: ');
  // Loaded here, at a scan: every command that opens the embedded appliance loads this module,
  // and node:http (eight modules of Node's own) is the larger part of what none of them uses.
  const { request } = process.getBuiltinModule('node:http');
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: '/_stor/zfs/host-key', method: 'GET', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
        if (body.length > 64 * 1024) res.destroy(new Error('too long'));
      });
      res.on('error', () => reject(failed()));
      res.on('end', () => {
        const lines = body.split('\n').filter((l) => /^(ssh|ecdsa)-\S+ \S+$/.test(l));
        if (res.statusCode === 200 && lines.length > 0) resolve(lines.join('\n'));
        else reject(failed());
      });
    });
    req.setTimeout(connectTimeout * 1000, () => {
      req.destroy();
      reject(rpcErrors.call(ERRNO.EFAULT, 'SSH timeout'));
    });
    req.on('error', () => reject(failed()));
    req.end();
  });
}
