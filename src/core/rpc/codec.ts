import { rpcErrors, type RpcError, type RpcErrorObject } from '../errors.js';
import { knownJsonOf } from '../appliance/answer-text.js';
import { carriesPyNumbers, pyJsonStringify } from '../appliance/py-numbers.js';
import { PythonJsonError, pythonJsonLoads } from './python-json.js';

/** A request that passed the envelope checks (MW/api/base/server/ws_handler/rpc.py:271-304). */
export interface RpcRequest {
  /** Absent for a notification: the call runs but nothing is sent back. */
  hasId: boolean;
  id: string | number | boolean | null;
  method: string;
  params: unknown[];
}

export type RpcResponse =
  { jsonrpc: '2.0'; result: unknown; id: RpcRequest['id'] } | { jsonrpc: '2.0'; error: RpcErrorObject; id: unknown };

/** What the codec makes of one message: a request, or an error to send (or to drop, for notifications). */
/** An error's `id` is what the message carried, even one that is no valid id (echoed as 25.10.1 echoes it). */
export type Decoded = { ok: true; request: RpcRequest } | { ok: false; error: RpcError; id: unknown; reply: boolean };

export function successResponse(id: RpcRequest['id'], result: unknown): RpcResponse {
  return { jsonrpc: '2.0', result, id };
}

/**
 * A response's text: JSON.stringify(response), but an answer whose text was made once
 * (appliance/answer-text.ts) is put in as that text, in the place successResponse's key order
 * gives it, instead of being serialized again; an answer that carries numbers Python writes
 * otherwise (appliance/py-numbers.ts: `1.0`, a 64-bit guid) is written with their texts.
 */
export function encodeResponse(response: RpcResponse): string {
  if ('result' in response && response.id !== undefined) {
    const text = knownJsonOf(response.result);
    if (text !== undefined) return `{"jsonrpc":"2.0","result":${text},"id":${JSON.stringify(response.id)}}`;
    if (carriesPyNumbers(response.result)) return pyJsonStringify(response);
  }
  return JSON.stringify(response);
}

export function errorResponse(id: unknown, error: RpcError): RpcResponse {
  return { jsonrpc: '2.0', error: error.toJSON(), id };
}

/** Parses one text frame or request body; where JSON.parse fails, Python's json.loads decides (python-json.ts). */
export function decodeText(text: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    try {
      value = pythonJsonLoads(text);
    } catch (pyErr) {
      // Nesting too deep for the recursive reading: the JS parser's words (Python raises a RecursionError there).
      const message =
        pyErr instanceof PythonJsonError ? pyErr.message : err instanceof Error ? err.message : String(err);
      return { ok: false, error: rpcErrors.parse(message), id: null, reply: true };
    }
  }
  return decodeMessage(value);
}

// A number id must survive the round trip exactly: past 2^53 the reply would carry another number.
const isValidId = (id: unknown): id is RpcRequest['id'] =>
  id === null ||
  typeof id === 'string' ||
  typeof id === 'boolean' ||
  (typeof id === 'number' && Number.isSafeInteger(id));

/** Checks an already-parsed message against the envelope rules, in the appliance's order. */
export function decodeMessage(value: unknown): Decoded {
  if (Array.isArray(value)) {
    return {
      ok: false,
      error: rpcErrors.parse('Batch messages are not supported at this time'),
      id: null,
      reply: true,
    };
  }
  if (value === null || typeof value !== 'object') {
    return { ok: false, error: rpcErrors.parse('Invalid Message Format'), id: null, reply: true };
  }
  const msg = value as Record<string, unknown>;
  const hasId = Object.hasOwn(msg, 'id');
  const id = hasId && isValidId(msg.id) ? msg.id : null;
  // The id as sent, valid or not: 25.10.1 echoes `message.get("id")` (MW/api/base/server/ws_handler/rpc.py:309-311);
  // but an integer past 2^53 (or one too large to be finite) would go back as another number: null.
  const raw = hasId ? msg.id : null;
  const lossy =
    typeof raw === 'number' && (Number.isInteger(raw) || !Number.isFinite(raw)) && !Number.isSafeInteger(raw);
  const invalid = (message: string): Decoded => ({
    ok: false,
    error: rpcErrors.invalidRequest(message),
    id: lossy ? null : raw,
    reply: hasId,
  });
  if (!Object.hasOwn(msg, 'jsonrpc')) return invalid("Missing 'jsonrpc' member");
  if (msg.jsonrpc !== '2.0') return invalid("'jsonrpc' member must be of type string and must be exactly '2.0'");
  if (hasId && !isValidId(msg.id)) return invalid("'id' member must be of type null, string or number");
  if (!Object.hasOwn(msg, 'method')) return invalid("Missing 'method' member");
  if (typeof msg.method !== 'string' || msg.method === '') return invalid("'method' member must be of type string");
  const params = Object.hasOwn(msg, 'params') ? msg.params : [];
  if (!Array.isArray(params)) return invalid("'params' member must be of type array");
  return { ok: true, request: { hasId, id, method: msg.method, params } };
}
