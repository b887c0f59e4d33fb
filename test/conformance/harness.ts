import { expect } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { contractViolations } from '../../src/core/contract/conformance.js';
import { CONTRACT, type MethodName } from '../../src/core/contract/index.js';
import { loggedInWs, startTestServer, type RpcReply, type TestServer, type WsClient } from '../helpers/server.js';

/** An in-process `stor serve --emulate truenas-25.10.1` on port 0, with a temporary state. */
export const server25 = (): Promise<TestServer> => startTestServer(EMULATIONS['truenas-25.10.1']);

/** `server25()` and a WebSocket logged in as the seeded administrator. */
export async function adminSession(): Promise<{ server: TestServer; ws: WsClient }> {
  const server = await server25();
  return { server, ws: await loggedInWs(server.rpcUrl, server.adminKey) };
}

/** A call's answer, which must succeed and match the method's 25.10.1 result schema exactly. */
export async function conforming<T = any>(client: WsClient, method: MethodName, params: unknown[] = []): Promise<T> {
  const reply = await client.call(method, params);
  expect(reply.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
  expect(contractViolations(CONTRACT[method].result, reply.result)).toEqual([]);
  return reply.result as T;
}

/** The `error` of a reply, with the trace reduced to its class (its frames are ours, not the appliance's). */
export function errorOf(reply: RpcReply) {
  expect(reply.result).toBeUndefined();
  const { trace, ...data } = reply.error!.data as Record<string, unknown> & { trace: { class: string } };
  return { code: reply.error!.code, message: reply.error!.message, data, traceClass: trace?.class };
}

/** What `errorOf` gives for ValidationErrors with these `[attribute, message]` pairs
 * (MW/api/base/server/ws_handler/rpc.py:122-127, 370-372; MW/service_exception.py:84-88). */
export const validation = (...triples: [string, string][]) => ({
  code: -32602,
  message: 'Invalid params',
  data: {
    error: 22,
    errname: 'EINVAL',
    reason: triples.map(([attr, msg]) => `[EINVAL] ${attr}: ${msg}\n`).join(''),
    extra: triples.map(([attr, msg]) => [attr, msg, 22]),
  },
  traceClass: 'ValidationErrors',
});
