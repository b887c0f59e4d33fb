import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { localFile, remoteEnv } from '../../helpers/client-env.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

const traces = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('stor: trace: '));

describe('-v against a real stor serve', () => {
  it('traces the target, each transport, every call with its duration, and an upload with its job; never the key', async () => {
    const server = await spawnServe(tempDir());
    const env = remoteEnv(server);
    const key = env.STOR_API_KEY!;

    const ws = await spawnStor(['-v', 'whoami'], { env });
    expect(ws.code, ws.stderr).toBe(0);
    const wsLines = traces(ws.stderr);
    expect(wsLines[0]).toBe(`stor: trace: target: ${server.baseUrl}, no profile`);
    expect(wsLines[1]).toBe(`stor: trace: transport: ws (${server.baseUrl}/api/current), TLS none`);
    expect(wsLines).toContainEqual(expect.stringMatching(/^stor: trace: connected in \d+\.\d ms$/));
    expect(wsLines).toContainEqual(expect.stringMatching(/^stor: trace: call auth\.login_with_api_key: \d+\.\d ms$/));
    expect(wsLines).toContainEqual(expect.stringMatching(/^stor: trace: call auth\.me: \d+\.\d ms$/));
    expect(ws.stderr).not.toContain(key);

    const http = await spawnStor(['-v', '--rpc', 'http', 'whoami'], { env });
    expect(http.code, http.stderr).toBe(0);
    expect(traces(http.stderr)[1]).toBe(
      `stor: trace: transport: http (POST ${server.baseUrl.replace(/^ws:/, 'http:')}/api/current), TLS none`,
    );
    expect(traces(http.stderr)).toContainEqual(expect.stringMatching(/^stor: trace: call auth\.me: \d+\.\d ms$/));
    expect(http.stderr).not.toContain(key);

    const file = localFile('traced.bin', Buffer.alloc(200_000, 7));
    const up = await spawnStor(['-v', 'upload', file, '/mnt/tank/'], { env });
    expect(up.code, up.stderr).toBe(0);
    const upLines = traces(up.stderr);
    expect(upLines).toContain(
      `stor: trace: upload ${file} to /mnt/tank/traced.bin: 200000 bytes, POST ${server.baseUrl.replace(/^ws:/, 'http:')}/_upload/`,
    );
    expect(upLines).toContainEqual(
      expect.stringMatching(
        /^stor: trace: upload to \/mnt\/tank\/traced\.bin: sent in \d+\.\d ms; waiting for job \d+$/,
      ),
    );
    expect(upLines).toContainEqual(
      expect.stringMatching(/^stor: trace: upload to \/mnt\/tank\/traced\.bin: job \d+ done after \d+\.\d ms$/),
    );
    expect(up.stderr).not.toContain(key);
    // The trace is stderr's alone: piped stdout is the table's data.
    expect(up.stdout).not.toContain('stor: trace:');
  });
});
