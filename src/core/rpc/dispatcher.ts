import { sep } from 'node:path';
import { contractViolations } from '../contract/conformance.js';
import type { MethodContract } from '../contract/method.js';
import { RpcError, rpcErrors, type RpcErrorObject } from '../errors.js';
import { isSystemError, osError } from '../appliance/files/os-error.js';
import { appliancePathOf } from '../appliance/files/sandbox.js';
import type { Appliance } from '../appliance/appliance.js';
import type { CallContext, MethodDefinition } from '../appliance/method.js';
import { validateParams, type ValidationStyle } from '../appliance/params.js';
import { handlersOf, loadedHandlersOf, type Handlers } from '../appliance/methods/index.js';
import { PatternRefusal, pythonPatternException } from '../appliance/query/python.js';
import type { Session } from '../appliance/session/session.js';
import { revalidateSession } from '../appliance/session/session-check.js';
import { modelOrderer } from './model-order.js';
import { withPyException } from './py-exception.js';
import { decodeText, errorResponse, successResponse, type RpcRequest, type RpcResponse } from './codec.js';

/** Hooks a network adapter puts between method lookup and the call (the order of MW/api/base/server/ws_handler/rpc.py:306-364, MW/api/base/server/method.py:52). */
export interface CallGate {
  /** Throws to refuse the call, e.g. -32000 past the in-flight limit or EBUSY past the rate limit. */
  beforeCall?(method: MethodContract, session: Session): void;
  /**
   * Told of each answered request (notifications too) with the session's login id from before it,
   * so a network adapter can log logins (login-log.ts); must not throw.
   */
  afterCall?(
    request: RpcRequest,
    session: Session,
    loginIdBefore: string | null,
    outcome: { result: unknown } | { error: RpcErrorObject },
  ): void;
}

/**
 * Anything a handler throws that is not an RpcError reaches the caller as the appliance reports it.
 * A file-system error speaks of the appliance path, never of where the state lives on this host.
 */
export function asRpcError(err: unknown, mntDir?: string): RpcError {
  if (err instanceof RpcError) return err;
  if (isSystemError(err)) {
    const inside =
      mntDir !== undefined &&
      typeof err.path === 'string' &&
      (err.path === mntDir || err.path.startsWith(mntDir + sep));
    return osError(err.code, inside ? appliancePathOf(mntDir, err.path!) : null);
  }
  if (err instanceof Error) return rpcErrors.exception(err.constructor.name || 'Exception', err.message || err.name);
  return rpcErrors.exception('Exception', String(err));
}

// Read once: the test suite sets it, so every answer the emulator gives in a test is checked.
const CHECK_RESULTS = process.env.STOR_CHECK_RESULTS === '1';

/**
 * With STOR_CHECK_RESULTS=1, an answer that does not match the method's contract is a bug of the
 * emulator: it fails the call (and so the test) instead of reaching the client.
 */
function conforming(def: MethodDefinition, result: unknown, release: string): unknown {
  if (!CHECK_RESULTS) return result;
  const value = result ?? null;
  const problems = contractViolations(def.result, isJsonAsItIs(value) ? value : JSON.parse(JSON.stringify(value)));
  if (problems.length > 0)
    throw new Error(
      `stor emulator bug: ${def.name} answered outside its ${release} result schema: ${problems.slice(0, 5).join('; ')}`,
    );
  return result;
}

/** The answer as the release's result model dumps it: its keys in the model's order (model-order.ts). */
function inModelOrder(def: MethodDefinition, result: unknown): unknown {
  const order = modelOrderer(def.result);
  return order ? order(result) : result;
}

/**
 * Whether `JSON.parse(JSON.stringify(value))` would give `value` back as it is, so the check can
 * read the answer itself instead of a copy: only strings, booleans, null, finite numbers other than
 * -0, dense arrays and objects of Object.prototype without toJSON or undefined members. Anything
 * else (a Date, a Buffer, NaN, a hole) makes the check copy as before. The copy was most of the
 * check's cost on lists of hundreds of rows (bench/HISTORY.md, the suite's time, fifth round).
 */
function isJsonAsItIs(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if ('toJSON' in value) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!(i in value) || !isJsonMember(value[i])) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key in value) if (!isJsonMember((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

const isJsonMember = (value: unknown): boolean => value !== undefined && isJsonAsItIs(value);

/**
 * A handler written for 25.10.1's entry, serving a later release's (contract/v26_0_0/): params
 * validated by the release's schemas, the answer turned into the release's by its `fromBase`.
 * Only entries that changed get here; the rest are the handler's own.
 */
function releaseMethod(handler: MethodDefinition, entry: MethodContract): MethodDefinition {
  const adapt = entry.fromBase;
  const bindValidated = (args: readonly unknown[]) => {
    const run = handler.bindValidated(args);
    return adapt ? async (ctx: CallContext) => adapt(await run(ctx)) : run;
  };
  const bind = (params: readonly unknown[], style?: ValidationStyle) =>
    bindValidated(validateParams(entry.params, params, style));
  // A job in the emulator stays one (`withJob`), whatever the entry says.
  return Object.assign(Object.create(entry) as MethodContract, { bind, bindValidated, job: handler.job });
}

/**
 * The handler of one entry of the release's contract: the one implemented from that very entry
 * (directly, or through `withJob`), else 25.10.1's handler of the method adapted to the entry;
 * undefined when the emulator has neither.
 */
function handlerOf(entry: MethodContract, { base, release }: Handlers): MethodDefinition | undefined {
  const own = [...release, base].find((h) => h !== undefined && Object.prototype.isPrototypeOf.call(entry, h));
  return own ?? (base && releaseMethod(base, entry));
}

/**
 * JSON-RPC 2.0 over the handler table (appliance/methods/index.ts, imported here only): envelope
 * checks, method lookup, authentication and authorization from the contract's access rules,
 * parameter validation, then the handler.
 */
export class Dispatcher {
  /**
   * The last lookup that had to load a handler file (methods/index.ts loads them when first
   * used): while one is under way, every later call waits its turn behind it, so calls still
   * start in the order they came, as when every handler was loaded at start.
   */
  private loading: Promise<unknown> | undefined;

  constructor(readonly appliance: Appliance) {}

  /** The handlers of `entry`'s method: at once when its file is loaded and no load is under way. */
  private async handlersFor(entry: MethodContract): Promise<Handlers> {
    const lookup = (this.loading ?? Promise.resolve()).catch(() => undefined).then(() => handlersOf(entry.name));
    this.loading = lookup;
    try {
      return await lookup;
    } finally {
      if (this.loading === lookup) this.loading = undefined;
    }
  }

  /** Lookup, authorization, validation and execution of one call; throws RpcError. */
  async call(
    session: Session,
    method: string,
    params: readonly unknown[],
    messageId?: unknown,
    gate?: CallGate,
  ): Promise<unknown> {
    // The release's own entry (src/core/releases/ contractFor, with the key login the settings
    // chose): who may call it, its params and, where its models changed since 25.10.1, how the
    // handler's answer becomes the release's.
    const entry = this.appliance.contract.get(method);
    const handlers =
      entry && ((this.loading === undefined && loadedHandlersOf(entry.name)) || (await this.handlersFor(entry)));
    revalidateSession(this.appliance, session);
    const def = entry && handlerOf(entry, handlers!);
    if (!def) throw rpcErrors.methodNotFound();
    gate?.beforeCall?.(def, session);
    if (def.access.kind !== 'public') {
      if (!session.authenticated) throw rpcErrors.notAuthenticated();
      if (def.access.kind === 'roles' && !session.holdsAny(def.access.roles)) throw rpcErrors.notAuthorized();
    }
    // Worded as the release answering words them (its `joinUnionErrors`).
    const run = def.bind(params, this.appliance.release);
    const ctx = { appliance: this.appliance, session, messageId };
    if (def.job) {
      const job = this.appliance.jobs.start(session, def.name, [...params], messageId, (handle) =>
        Promise.resolve()
          .then(async () =>
            conforming(def, inModelOrder(def, await run({ ...ctx, job: handle })), this.appliance.release.name),
          )
          .catch((err: unknown) => {
            throw this.releaseError(err);
          }),
      );
      return session.options.legacy_jobs ? job.id : await job.done;
    }
    try {
      return conforming(def, inModelOrder(def, await run(ctx)), this.appliance.release.name);
    } catch (err) {
      throw this.releaseError(err);
    }
  }

  /**
   * What a handler raised, a job's or a call's, as the release's middleware sends it. A `~` pattern
   * its Python refuses is worded here, where the release is known: the query engine that meets it
   * does not know it (query/python.ts, PatternRefusal).
   */
  private releaseError(err: unknown): RpcError {
    const worded = err instanceof PatternRefusal ? pythonPatternException(err, this.appliance.release.python) : err;
    return asRpcError(worded, this.appliance.store.mntDir);
  }

  /** Runs a decoded request; `null` for a notification, which gets no reply of any kind. */
  async run(session: Session, request: RpcRequest, gate?: CallGate): Promise<RpcResponse | null> {
    let response: RpcResponse;
    const loginIdBefore = session.loginId;
    try {
      response = successResponse(
        request.id,
        await this.call(session, request.method, request.params, request.id, gate),
      );
    } catch (err) {
      const error = asRpcError(err);
      response = errorResponse(request.id, session.options.py_exceptions ? withPyException(error) : error);
    }
    gate?.afterCall?.(request, session, loginIdBefore, response);
    return request.hasId ? response : null;
  }

  /** One text frame or request body in, one response (or none) out. */
  async handleText(session: Session, text: string, gate?: CallGate): Promise<RpcResponse | null> {
    return this.handleDecoded(session, decodeText(text), gate);
  }

  private async handleDecoded(
    session: Session,
    decoded: ReturnType<typeof decodeText>,
    gate?: CallGate,
  ): Promise<RpcResponse | null> {
    if (!decoded.ok) return decoded.reply ? errorResponse(decoded.id, decoded.error) : null;
    return this.run(session, decoded.request, gate);
  }
}
