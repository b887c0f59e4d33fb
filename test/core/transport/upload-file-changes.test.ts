import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { E } from '../../../src/core/error-catalogue.js';
import { StorError } from '../../../src/core/errors.js';
import { parseEndpoint } from '../../../src/core/transport/endpoint.js';
import { postUpload, uploadAgent } from '../../../src/core/transport/upload-client.js';
import type { JobEntry } from '../../../src/core/appliance/jobs/jobs.js';
import { SAFETY_MS, loggedInWs, startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * A local file that another program lengthens or shortens while stor uploads it. The request's
 * Content-Length is the size the file had when the upload began: the body can be neither longer
 * nor shorter. The file is changed at the first progress report, when one of its 2 MiB buffers
 * has been read (the next is read when the socket asks for it), long before the end of a 32 MiB
 * file.
 */

const MiB = 1024 * 1024;
const SIZE = 32 * MiB;

async function uploadChanging(change: (file: string) => void): Promise<unknown> {
  const server = await startTestServer();
  const file = join(tempDir('stor-changing-'), 'grows.bin');
  writeFileSync(file, Buffer.alloc(SIZE, 7));
  const agent = uploadAgent({ insecure: false }, 60);
  let changed = false;
  try {
    await postUpload(
      parseEndpoint(server.rpcUrl),
      `Bearer ${server.adminKey}`,
      agent,
      {
        file,
        size: SIZE,
        path: '/mnt/tank/changing.bin',
        options: {},
        onProgress: () => {
          if (changed) return;
          changed = true;
          change(file);
        },
      },
      60,
    );
    return undefined;
  } catch (err) {
    return err;
  } finally {
    await agent.close();
  }
}

describe('a file that changes size while it is uploaded', () => {
  it('one cut short under the upload fails with SIZE_MISMATCH naming the file, not as a network failure', async () => {
    const err = await uploadChanging((file) => truncateSync(file, 8 * MiB));
    expect(err).toBeInstanceOf(StorError);
    expect((err as StorError).code).toBe(E.SIZE_MISMATCH.code);
    expect((err as StorError).message).toMatch(/grows\.bin changed size while it was read: it had 33554432 bytes/);
    expect((err as StorError).message).toMatch(/ended after 8388608/);
  });

  it('one that grows under the upload fails with SIZE_MISMATCH, not as a network failure', async () => {
    const err = await uploadChanging((file) => appendFileSync(file, Buffer.alloc(MiB, 1)));
    expect(err).toBeInstanceOf(StorError);
    expect((err as StorError).code).toBe(E.SIZE_MISMATCH.code);
    expect((err as StorError).message).toMatch(/grows\.bin changed size while it was read: .* has more now/);
  });

  it('an upload stopped part-way, or cut off by a file that changed, leaves no descriptor of the file open', async () => {
    // The session agent uploads file after file in one process: a descriptor left open by each
    // stopped upload would add up there.
    const opened = (file: string) =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false;
        }
      }).length;
    // Bounded by SAFETY_MS, not a count of looks: on a loaded machine the close can come later than 5 s.
    const closed = async (file: string) => {
      for (const deadline = Date.now() + SAFETY_MS; opened(file) > 0 && Date.now() < deadline;)
        await new Promise((resolve) => setTimeout(resolve, 25));
      return opened(file);
    };
    const server = await startTestServer();
    const file = join(tempDir('stor-stopped-'), 'stopped.bin');
    writeFileSync(file, Buffer.alloc(SIZE, 7));
    const agent = uploadAgent({ insecure: false }, 60);
    try {
      const stop = new AbortController();
      let seen = 0;
      const err = await postUpload(
        parseEndpoint(server.rpcUrl),
        `Bearer ${server.adminKey}`,
        agent,
        {
          file,
          size: SIZE,
          path: '/mnt/tank/stopped.bin',
          options: {},
          signal: stop.signal,
          onProgress: () => {
            // Open while the file is being read: the check below looks at the right descriptor.
            seen = Math.max(seen, opened(file));
            stop.abort('SIGINT');
          },
        },
        60,
      ).catch((e: unknown) => e);
      expect((err as StorError).code).toBe(E.INTERRUPTED.code);
      expect(seen).toBe(1);
      expect(await closed(file)).toBe(0);
    } finally {
      await agent.close();
    }
    const err = await uploadChanging((changing) => truncateSync(changing, 8 * MiB));
    expect((err as StorError).code).toBe(E.SIZE_MISMATCH.code);
    expect(await closed((err as StorError).message.split(' changed size')[0]!)).toBe(0);
  });

  it('a file removed since it was planned, or one that fails to read, fails as the local file it is, not as the appliance unreachable', async () => {
    const server = await startTestServer();
    const dir = tempDir('stor-unreadable-');
    const agent = uploadAgent({ insecure: false }, 60);
    try {
      // Removed between the plan's stat and its turn (the upload of several files); a directory's
      // descriptor opens and then fails to read (EISDIR), as a read failing with EIO would.
      for (const [file, errno] of [
        [join(dir, 'removed.bin'), 'ENOENT'],
        [dir, 'EISDIR'],
      ] as const) {
        const err = await postUpload(
          parseEndpoint(server.rpcUrl),
          `Bearer ${server.adminKey}`,
          agent,
          { file, size: 10, path: '/mnt/tank/unreadable.bin', options: {} },
          60,
        ).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StorError);
        expect({ code: (err as StorError).code, message: (err as StorError).message }).toEqual({
          code: E.LOCAL_FILE_UNREADABLE.code,
          message: `cannot read the local file ${file}: ${errno}`,
        });
      }
      expect(existsSync(join(server.stateDir, 'mnt/tank/unreadable.bin'))).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it('files of 0 bytes, 2 MiB - 1, 2 MiB and 2 MiB + 1 go whole', async () => {
    const server = await startTestServer();
    const agent = uploadAgent({ insecure: false }, 60);
    try {
      for (const size of [0, 2 * MiB - 1, 2 * MiB, 2 * MiB + 1, 8 * MiB]) {
        const file = join(tempDir('stor-sizes-'), `f${size}.bin`);
        const bytes = Buffer.alloc(size);
        for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 11)) & 0xff;
        writeFileSync(file, bytes);
        const job = await postUpload(
          parseEndpoint(server.rpcUrl),
          `Bearer ${server.adminKey}`,
          agent,
          { file, size, path: `/mnt/tank/f${size}.bin`, options: {} },
          60,
        );
        expect(typeof job).toBe('number');
        const client = await loggedInWs(server.rpcUrl, server.adminKey);
        await client.result('core.set_options', [{ legacy_jobs: false }]);
        await client.call('core.job_wait', [job]);
        const entry = await client.result<JobEntry>('core.get_jobs', [[['id', '=', job]], { get: true }]);
        client.close();
        expect(entry.state, `${size}`).toBe('SUCCESS');
        const stored = join(server.stateDir, 'mnt/tank', `f${size}.bin`);
        expect(existsSync(stored)).toBe(true);
        expect(readFileSync(stored).equals(bytes)).toBe(true);
      }
    } finally {
      await agent.close();
    }
  });
});
