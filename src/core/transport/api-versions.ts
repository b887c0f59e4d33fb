import type { Agent } from 'undici';
import { requestOn } from './http-request.js';
import type { Endpoint } from './endpoint.js';

/** More than any build's list (25.10.1 lists 8 versions in under 200 bytes); a longer answer is not one. */
const MAX_BYTES = 16 * 1024;

/**
 * `GET {base}/api/versions`, which answers without a login (MW/main.py:1300-1304): the versioned
 * API paths the build serves (`["v25.04.0", …, "v25.10.1"]`). Asked only when `/api/current`
 * was not there, to tell an appliance too old for stor from something that is not one. Null when
 * the answer is not such a list, or does not come within the timeout. `agent` carries the
 * connection's TLS settings (upload-client.ts uploadAgent); it is closed here.
 */
export async function apiVersions(endpoint: Endpoint, agent: Agent, timeoutSeconds: number): Promise<string[] | null> {
  try {
    const res = await requestOn(agent, new URL('api/versions', endpoint.base), {
      method: 'GET',
      headersTimeout: timeoutSeconds * 1000,
      bodyTimeout: timeoutSeconds * 1000,
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return null;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BYTES) {
        res.body.destroy();
        return null;
      }
      chunks.push(chunk);
    }
    const list: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return Array.isArray(list) &&
      list.length > 0 &&
      list.length <= 100 &&
      list.every((v) => typeof v === 'string' && /^v[0-9][0-9A-Za-z._-]{0,30}$/.test(v))
      ? (list as string[])
      : null;
  } catch {
    return null;
  } finally {
    void agent.close();
  }
}
