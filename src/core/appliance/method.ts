import type { z } from 'zod';
import type { MethodContract, ParamSpec, ParamValues } from '../contract/method.js';
import type { Appliance } from './appliance.js';
import type { JobHandle } from './jobs/jobs.js';
import type { Session } from './session/session.js';

export { AUTHENTICATED, PUBLIC, PUBLIC_UNLIMITED, roles, type Access } from '../contract/method.js';

export interface CallContext {
  appliance: Appliance;
  session: Session;
  /** The JSON-RPC id of the request, recorded on jobs it starts. */
  messageId?: unknown;
  /** Set while a job method runs. */
  job?: JobHandle;
}

/**
 * A method the emulator serves: its contract (what 25.10.1 takes and answers, who may call it)
 * and the handler that implements it.
 */
export interface MethodDefinition<P extends readonly ParamSpec[] = readonly ParamSpec[]> extends MethodContract<P> {
  handler: (ctx: CallContext, ...args: ParamValues<P>) => unknown;
}

/**
 * Implements a contract method; the handler's argument types follow from the contract. What it
 * answers is checked against the contract's result schema at run time when STOR_CHECK_RESULTS is
 * set (the test suite sets it), not by the compiler: entries are assembled from stored rows.
 */
export function implement<const P extends readonly ParamSpec[], R extends z.ZodType>(
  contract: MethodContract<P, R>,
  handler: (ctx: CallContext, ...args: ParamValues<P>) => unknown,
): MethodDefinition {
  // Through the prototype, not a spread: a spread would build the contract's lazy schemas now.
  return Object.assign(Object.create(contract) as MethodContract<P, R>, { handler }) as unknown as MethodDefinition;
}

/**
 * The contract with `job` overridden, its lazy schemas left lazy: a spread would build every
 * schema of the method at load time, on every command's start.
 */
export function withJob<C extends MethodContract>(contract: C, job: boolean): C {
  return Object.assign(Object.create(contract) as C, { job });
}
