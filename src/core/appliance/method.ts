import type { z } from 'zod';
import type { MethodContract, ParamSpec, ParamValues } from '../contract/method.js';
import type { Appliance } from './appliance.js';
import { eventOf } from './crud-events.js';
import { validateParams, type ValidationStyle } from './params.js';
import type { JobHandle } from './jobs/jobs.js';
import type { Session } from './session/session.js';

export interface CallContext {
  appliance: Appliance;
  session: Session;
  /** The JSON-RPC id of the request, recorded on jobs it starts. */
  messageId?: unknown;
  /** Set while a job method runs. */
  job?: JobHandle;
}

/** What a handler answers: the contract's result as it goes on the wire (`z.input`), now or later. */
export type Answer<R extends z.ZodType> = z.input<R> | Promise<z.input<R>>;

/** A handler: its arguments are the contract's params as validated, its answer the contract's result. */
export type Handler<P extends readonly ParamSpec[], R extends z.ZodType> = (
  ctx: CallContext,
  ...args: ParamValues<P>
) => Answer<R>;

/**
 * A method the emulator serves: its contract (what 25.10.1 takes and answers, who may call it)
 * and its handler, bound to params once they are validated. The table of these is the
 * dispatcher's (methods/index.ts), which sees every method alike; each handler's own types are
 * checked where it is written, by `implement`.
 */
export interface MethodDefinition extends MethodContract {
  /**
   * Validates `params` against the contract (-32602 as pydantic words it, params.ts) and returns
   * the handler's call with them: the dispatcher validates before a job starts, and calls in it.
   */
  bind(params: readonly unknown[], style?: ValidationStyle): (ctx: CallContext) => unknown;
  /**
   * The handler's call with args another release's entry validated (rpc/dispatcher.ts
   * `releaseMethod`): a later release's models may carry fields 25.10.1's params refuse.
   */
  bindValidated(args: readonly unknown[]): (ctx: CallContext) => unknown;
}

/**
 * Implements a contract method. The compiler holds the handler to the contract both ways: its
 * arguments are the contract's params, and what it answers must be the contract's result
 * (`z.input` of the result schema), so an answer that drifts from 25.10.1's fails
 * `npm run typecheck`. With STOR_CHECK_RESULTS=1 (the test suite) the dispatcher also checks each
 * answer at run time, which catches what types cannot: a value out of range, a key too many.
 */
export function implement<const P extends readonly ParamSpec[], R extends z.ZodType>(
  contract: MethodContract<P, R>,
  handler: Handler<P, R>,
): MethodDefinition {
  // The `collection_update` a success sends, as CRUDService wraps do_create/do_update/do_delete
  // (MW/service/crud_service.py:204-226): after the handler, before the caller has its answer.
  const event = eventOf(contract.name);
  const bindValidated = (validated: readonly unknown[]) => {
    const args = validated as ParamValues<P>;
    if (!event) return (ctx: CallContext) => handler(ctx, ...args);
    return async (ctx: CallContext) => {
      const answer = await handler(ctx, ...args);
      const update = event(args, answer, ctx.appliance);
      if (update) ctx.appliance.events.send(update);
      return answer;
    };
  };
  const bind = (params: readonly unknown[], style?: ValidationStyle) =>
    bindValidated(validateParams(contract.params, params, style));
  // Through the prototype, not a spread: a spread would build the contract's lazy schemas now.
  return Object.assign(Object.create(contract) as MethodContract<P, R>, { bind, bindValidated });
}

/**
 * The contract with `job` overridden, its lazy schemas left lazy: a spread would build every
 * schema of the method at load time, on every command's start.
 */
export function withJob<C extends MethodContract>(contract: C, job: boolean): C {
  return Object.assign(Object.create(contract) as C, { job });
}
