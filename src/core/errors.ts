import { constants } from 'node:os';
import type { CatalogueEntry, ErrorCode } from './error-catalogue.js';
import { pyRepr } from './python-repr.js';

/**
 * The error model shared by the appliance, the dispatcher, the transports and the CLI.
 *
 * Two families:
 * - `RpcError`: a JSON-RPC error object exactly as a 25.10.1 appliance sends it (code, message and
 *   the "TrueNAS error" `data` of MW/api/base/server/ws_handler/rpc.py:85-127). The appliance
 *   throws these; the wire carries them; the remote transport rebuilds them, so callers see the
 *   same thing from either target.
 * - `StorError`: a client-side failure, one of the codes in `src/core/error-catalogue.ts`, whose
 *   `kind` says who must act. `src/cli.ts` maps kinds (and RpcErrors, through `classifyRpcError`)
 *   to exit codes, in one place.
 */

/** Linux errno values used by the appliance (Linux errno.h; the TrueNAS ones from truenas_api_client/exc.py:22-43). */
export const ERRNO = {
  EPERM: 1,
  ENOENT: 2,
  EAGAIN: 11,
  EACCES: 13,
  EFAULT: 14,
  EBUSY: 16,
  EEXIST: 17,
  EXDEV: 18,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  ENOSPC: 28,
  ENAMETOOLONG: 36,
  ENOTEMPTY: 39,
  ELOOP: 40,
  EBADMSG: 74,
  EOPNOTSUPP: 95,
  ECONNABORTED: 103,
  ETOOMANYREFS: 109,
  ETIMEDOUT: 110,
  ENOMETHOD: 201,
  ENOTAUTHENTICATED: 207,
} as const;

const NAMES = new Map<number, string>(Object.entries(ERRNO).map(([name, no]) => [no, name]));

/** As the appliance names an errno (MW/service_exception.py `get_errname`): ours, else the system's. */
export function errnameOf(errno: number): string {
  return NAMES.get(errno) ?? Object.entries(constants.errno).find(([, no]) => no === errno)?.[0] ?? 'EUNKNOWN';
}

/** JSON-RPC error codes (truenas_api_client/jsonrpc.py:10-19). */
export const RPC_CODE = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  TOO_MANY_CALLS: -32000,
  CALL_ERROR: -32001,
} as const;

export interface ErrorTrace {
  class: string;
  frames: unknown[];
  formatted: string;
  repr: string;
}

/** The `data` member of -32001/-32602 errors (MW/api/base/server/ws_handler/rpc.py:85-100). */
export interface TrueNasErrorData {
  error: number;
  errname: string;
  reason: string;
  trace: ErrorTrace | null;
  extra: unknown;
  /** The exception pickled, base64, to a connection that set `py_exceptions` (rpc/py-exception.ts). */
  py_exception?: string;
}

/** `[attribute, message, errno]`, as in `data.extra` of validation errors. */
export type ValidationTriple = [attribute: string | null, message: string, errno: number];

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: TrueNasErrorData;
}

export class RpcError extends Error {
  override readonly name = 'RpcError';
  /** The roles the refused call needed (any one, or FULL_ADMIN), when stor knows them from the contract: said in the hint. */
  neededRoles?: readonly string[];
  /** stor's advice for this answer, added by the command that knows a flag that would help (`--exist-ok`, `--parents`). */
  hint?: string;

  /**
   * `rpcMessage` is the JSON-RPC `message` member (`Method call error`, `Invalid params`, …);
   * `Error.message` holds the human reason, which is what a catch block wants to print.
   */
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    readonly data?: TrueNasErrorData,
  ) {
    super(data?.reason ?? rpcMessage);
  }

  get errno(): number | undefined {
    return this.data?.error;
  }

  get errname(): string | undefined {
    return this.data?.errname;
  }

  get reason(): string {
    return this.data?.reason ?? this.message;
  }

  /** Validation triples, when this is a -32602 error. */
  get triples(): ValidationTriple[] {
    const extra = this.data?.extra;
    if (!Array.isArray(extra)) return [];
    return extra.filter(
      (t): t is ValidationTriple =>
        Array.isArray(t) && (t[0] === null || typeof t[0] === 'string') && typeof t[1] === 'string',
    );
  }

  toJSON(): RpcErrorObject {
    const out: RpcErrorObject = { code: this.code, message: this.rpcMessage };
    if (this.data !== undefined) out.data = this.data;
    return out;
  }

  /** Rebuilds an error received on the wire; tolerant of appliances that omit parts. */
  static fromWire(obj: unknown): RpcError {
    const o = (obj ?? {}) as Partial<RpcErrorObject>;
    const code = typeof o.code === 'number' ? o.code : RPC_CODE.INTERNAL_ERROR;
    const message = typeof o.message === 'string' ? o.message : 'Unknown error';
    // A hostile or broken appliance may send any shape; only a well-formed data member is kept.
    const d = o.data && typeof o.data === 'object' ? (o.data as Partial<Record<keyof TrueNasErrorData, unknown>>) : {};
    const wellFormed = typeof d.error === 'number' && typeof d.errname === 'string' && typeof d.reason === 'string';
    const data = wellFormed
      ? ({ ...d, trace: d.trace && typeof d.trace === 'object' ? d.trace : null } as TrueNasErrorData)
      : undefined;
    return new RpcError(code, message, data);
  }
}

function trace(cls: string, reason: string, repr?: string): ErrorTrace {
  return {
    class: cls,
    frames: [],
    formatted: `${cls}: ${reason}`,
    repr: repr ?? `${cls}(${pyRepr(reason)})`,
  };
}

function reasonAttribute(attribute: string | null): string {
  return attribute === null ? 'None' : attribute;
}

/** A single ValidationError or subclass as the handler sends it: errno 22 outside, the inner errno inside, no trailing newline (MW/api/base/server/ws_handler/rpc.py:365-368). */
function validationErrorOf(
  cls: string,
  attribute: string | null,
  message: string,
  errno: number,
  repr: string,
): RpcError {
  const reason = `[${errnameOf(errno)}] ${reasonAttribute(attribute)}: ${message}`;
  const data: TrueNasErrorData = {
    error: ERRNO.EINVAL,
    errname: 'EINVAL',
    reason,
    trace: trace(cls, reason, repr),
    extra: [[attribute, message, errno]],
  };
  return new RpcError(RPC_CODE.INVALID_PARAMS, 'Invalid params', data);
}

/** Named constructors: every error the appliance and dispatcher produce comes from here. */
export const rpcErrors = {
  parse(message: string): RpcError {
    return new RpcError(RPC_CODE.PARSE_ERROR, message);
  },

  invalidRequest(message: string): RpcError {
    return new RpcError(RPC_CODE.INVALID_REQUEST, message);
  },

  methodNotFound(): RpcError {
    const message = 'Method does not exist';
    return new RpcError(RPC_CODE.METHOD_NOT_FOUND, message);
  },

  tooManyCalls(limit: number): RpcError {
    const message = `Maximum number of concurrent calls (${limit}) has exceeded`;
    return new RpcError(RPC_CODE.TOO_MANY_CALLS, message);
  },

  /** A `CallError`: reason `[ERRNAME] message`. */
  call(errno: number, errmsg: string, extra: unknown = null): RpcError {
    const name = errnameOf(errno);
    const reason = `[${name}] ${errmsg}`;
    // Python's repr shows the constructor's positional args (MW/service_exception.py:15-19 keeps
    // them as passed): `CallError('msg', 2)`; the source leaves EFAULT, the default, out.
    const args = [
      errmsg,
      ...(errno !== ERRNO.EFAULT || extra !== null ? [errno] : []),
      ...(extra !== null ? [extra] : []),
    ];
    const data: TrueNasErrorData = {
      error: errno,
      errname: name,
      reason,
      trace: trace('CallError', reason, `CallError(${args.map(pyRepr).join(', ')})`),
      extra,
    };
    return new RpcError(RPC_CODE.CALL_ERROR, 'Method call error', data);
  },

  /** Any other exception class on the appliance: errno 22, reason = the exception text. */
  exception(cls: string, text: string, repr?: string): RpcError {
    const data: TrueNasErrorData = {
      error: ERRNO.EINVAL,
      errname: 'EINVAL',
      reason: text,
      trace: trace(cls, text, repr),
      extra: null,
    };
    return new RpcError(RPC_CODE.CALL_ERROR, 'Method call error', data);
  },

  /** `ValidationErrors`: one line per error, each ending in a newline (MW/service_exception.py:84-88). */
  validation(triples: ValidationTriple[]): RpcError {
    const reason = triples
      .map(([attr, msg, errno]) => `[${errnameOf(errno)}] ${reasonAttribute(attr)}: ${msg}\n`)
      .join('');
    const data: TrueNasErrorData = {
      error: ERRNO.EINVAL,
      errname: 'EINVAL',
      reason,
      // ValidationErrors passes its list to Exception (MW/service_exception.py:53-56); each error is
      // `ValidationError(attribute, errmsg, errno)`, made by add() with all three (:58-59).
      trace: trace(
        'ValidationErrors',
        reason,
        `ValidationErrors([${triples.map((t) => `ValidationError(${t.map(pyRepr).join(', ')})`).join(', ')}])`,
      ),
      extra: triples,
    };
    return new RpcError(RPC_CODE.INVALID_PARAMS, 'Invalid params', data);
  },

  /** A single `ValidationError` (no trailing newline; errno 22 outside, the inner errno inside). */
  validationOne(attribute: string | null, message: string, errno: number = ERRNO.EINVAL): RpcError {
    // `ValidationError('attr', 'msg')` as the source raises it, the errno shown when not the default.
    const args = [attribute, message, ...(errno !== ERRNO.EINVAL ? [errno] : [])];
    return validationErrorOf(
      'ValidationError',
      attribute,
      message,
      errno,
      `ValidationError(${args.map(pyRepr).join(', ')})`,
    );
  },

  /**
   * `InstanceNotFound` (MW/service_exception.py:115-118), a ValidationError with no attribute and
   * ENOENT: `[ENOENT] None: Privilege 7 does not exist`, class InstanceNotFound, as get_instance
   * raises it (MW/service/crud_service.py:242, :258) and every update or delete that calls it.
   */
  instanceNotFound(verbose: string, id: unknown): RpcError {
    return rpcErrors.instanceNotFoundText(`${verbose} ${String(id)} does not exist`);
  },

  /** `InstanceNotFound(text)` with a text of its own (`Snapshot tank@s not found`, MW/plugins/zfs_/snapshot.py:222-224). */
  instanceNotFoundText(message: string): RpcError {
    return validationErrorOf('InstanceNotFound', null, message, ERRNO.ENOENT, `InstanceNotFound(${pyRepr(message)})`);
  },

  notAuthenticated(): RpcError {
    return rpcErrors.call(ERRNO.ENOTAUTHENTICATED, 'Not authenticated');
  },

  notAuthorized(): RpcError {
    return rpcErrors.call(ERRNO.EACCES, 'Not authorized');
  },

  /**
   * What 25.10.1 raises at login when role expansion recurses forever (MW/role.py:362-365), answered
   * as any uncaught exception is (MW/api/base/server/ws_handler/rpc.py:378-391).
   */
  recursion(): RpcError {
    return rpcErrors.exception(
      'RecursionError',
      'maximum recursion depth exceeded',
      "RecursionError('maximum recursion depth exceeded')",
    );
  },

  /** A query with `get: true` that matched nothing. */
  matchNotFound(): RpcError {
    return rpcErrors.exception('MatchNotFound', 'MatchNotFound()', 'MatchNotFound()');
  },
};

/** Who has to act on a client-side failure. `src/cli.ts` turns each kind into an exit code. */
export type StorErrorKind =
  | 'usage' // the command line is wrong (exit 2)
  | 'failed' // the operation failed (exit 1)
  | 'unreachable' // connection, TLS, timeout (exit 3)
  | 'auth' // bad, revoked or expired key; login broken by a privilege (exit 4)
  | 'denied' // EACCES, 403 (exit 5)
  | 'check' // a check found problems (exit 6)
  | 'interrupted' // Ctrl-C, SIGINT (exit 130)
  | 'terminated' // SIGTERM (exit 143)
  | 'internal'; // a bug in stor (exit 1)

export class StorError extends Error {
  override readonly name = 'StorError';
  readonly kind: StorErrorKind;
  /** Stable code for callers and `--json` error output, e.g. `LOCAL_FILE_MISSING`. */
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  /** Items the message is about, one a line under it and in `--json`'s `details` (what a plan gained, say). */
  readonly details: string[] | undefined;

  /** `error` comes from the catalogue (`E.LOCAL_FILE_MISSING`): it fixes the code and the kind together. */
  constructor(
    error: CatalogueEntry,
    message: string,
    options: { hint?: string; cause?: unknown; details?: string[] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = error.kind;
    this.code = error.code;
    this.hint = options.hint;
    this.details = options.details;
  }
}

/**
 * A call refused for want of a role, as opposed to another EACCES (deleting a built-in group).
 * 25.10.1 gives both the same errno and code; only the role check says exactly this
 * (MW/apps/websocket_app.py:351, MW/main.py:924), and its own role tests match on the text too
 * (MW/test/integration/assets/roles.py:57).
 */
export function isRoleDenial(err: RpcError): boolean {
  // A CallError's reason carries its errno: `[EACCES] Not authorized`.
  return err.errno === ERRNO.EACCES && err.reason.trim().replace(/^\[EACCES\]\s*/, '') === 'Not authorized';
}

/** The CLI kind of an appliance error: switch on errno and code, never on text. */
export function classifyRpcError(err: RpcError): StorErrorKind {
  if (err.errno === ERRNO.ENOTAUTHENTICATED) return 'auth';
  if (err.errno === ERRNO.EACCES && err.code === RPC_CODE.CALL_ERROR) return 'denied';
  return 'failed';
}
