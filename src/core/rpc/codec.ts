import { rpcErrors, type RpcError, type RpcErrorObject } from '../errors.js';

/** A request that passed the envelope checks (MW/api/base/server/ws_handler/rpc.py:271-304). */
export interface RpcRequest {
  /** Absent for a notification: the call runs but nothing is sent back. */
  hasId: boolean;
  id: string | number | boolean | null;
  method: string;
  params: unknown[];
}

export type RpcResponse =
  | { jsonrpc: '2.0'; result: unknown; id: RpcRequest['id'] }
  | { jsonrpc: '2.0'; error: RpcErrorObject; id: RpcRequest['id'] };

/** What the codec makes of one message: a request, or an error to send (or to drop, for notifications). */
export type Decoded = { ok: true; request: RpcRequest } | { ok: false; error: RpcError; id: RpcRequest['id']; reply: boolean };

export function successResponse(id: RpcRequest['id'], result: unknown): RpcResponse {
  return { jsonrpc: '2.0', result, id };
}

export function errorResponse(id: RpcRequest['id'], error: RpcError): RpcResponse {
  return { jsonrpc: '2.0', error: error.toJSON(), id };
}

/** Python's decoder message for the commonest case; other failures keep the JS parser's words. */
function parseFailure(text: string, err: unknown): string {
  if (text.trim() === '') return 'Expecting value: line 1 column 1 (char 0)';
  return err instanceof Error ? err.message : String(err);
}

/** Parses one text frame or request body. */
export function decodeText(text: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: rpcErrors.parse(parseFailure(text, err)), id: null, reply: true };
  }
  return decodeMessage(value);
}

// A number id must survive the round trip exactly: past 2^53 the reply would carry another number.
const isValidId = (id: unknown): id is RpcRequest['id'] =>
  id === null || typeof id === 'string' || typeof id === 'boolean' || (typeof id === 'number' && Number.isSafeInteger(id));

/** Checks an already-parsed message against the envelope rules, in the appliance's order. */
export function decodeMessage(value: unknown): Decoded {
  if (Array.isArray(value)) {
    return { ok: false, error: rpcErrors.parse('Batch messages are not supported at this time'), id: null, reply: true };
  }
  if (value === null || typeof value !== 'object') {
    return { ok: false, error: rpcErrors.parse('Invalid Message Format'), id: null, reply: true };
  }
  const msg = value as Record<string, unknown>;
  const hasId = Object.hasOwn(msg, 'id');
  const id = hasId && isValidId(msg.id) ? msg.id : null;
  const invalid = (message: string): Decoded => ({ ok: false, error: rpcErrors.invalidRequest(message), id, reply: hasId });
  if (!Object.hasOwn(msg, 'jsonrpc')) return invalid("Missing 'jsonrpc' member");
  if (msg.jsonrpc !== '2.0') return invalid("'jsonrpc' member must be of type string and must be exactly '2.0'");
  if (hasId && !isValidId(msg.id)) return invalid("'id' member must be of type null, string or number");
  if (!Object.hasOwn(msg, 'method')) return invalid("Missing 'method' member");
  if (typeof msg.method !== 'string' || msg.method === '') return invalid("'method' member must be of type string");
  const params = Object.hasOwn(msg, 'params') ? msg.params : [];
  if (!Array.isArray(params)) return invalid("'params' member must be of type array");
  return { ok: true, request: { hasId, id, method: msg.method, params } };
}
