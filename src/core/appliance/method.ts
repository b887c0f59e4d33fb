import type { z } from 'zod';
import type { Appliance } from './appliance.js';
import type { ParamSpec } from './params.js';
import type { JobHandle } from './jobs.js';
import type { Session } from './session.js';

/**
 * Who may call a method (facts §1.8, §3.3, §5):
 * - `public`: no login needed (login calls, `core.ping`); rate-limited on the network when anonymous.
 * - `authenticated`: any logged-in session (`auth.me`, `privilege.roles`, `core.get_jobs`).
 * - `roles`: FULL_ADMIN, or one of these roles among the session's effective roles;
 *   an empty list means FULL_ADMIN only.
 */
export type Access =
  | { kind: 'public'; rateLimited: boolean }
  | { kind: 'authenticated' }
  | { kind: 'roles'; roles: readonly string[] };

export interface CallContext {
  appliance: Appliance;
  session: Session;
  /** The JSON-RPC id of the request, recorded on jobs it starts. */
  messageId?: unknown;
  /** Set while a job method runs. */
  job?: JobHandle;
}

type ParamValues<P extends readonly ParamSpec[]> = {
  -readonly [K in keyof P]: P[K] extends { schema: infer S extends z.ZodType } ? z.output<S> : never;
};

export interface MethodDefinition<P extends readonly ParamSpec[] = readonly ParamSpec[]> {
  name: string;
  /** One line for `stor call --help` and error messages. */
  summary: string;
  access: Access;
  params: P;
  /**
   * A job method: the call creates a job in `core.get_jobs`. With the connection's default
   * `legacy_jobs` the job id is answered at once; otherwise the answer waits for the job's result.
   */
  job?: boolean;
  handler: (ctx: CallContext, ...args: ParamValues<P>) => unknown;
}

/** Declares a method; the handler's argument types follow from the param schemas. */
export function defineMethod<const P extends readonly ParamSpec[]>(def: MethodDefinition<P>): MethodDefinition {
  return def as unknown as MethodDefinition;
}

export const PUBLIC: Access = { kind: 'public', rateLimited: true };
export const PUBLIC_UNLIMITED: Access = { kind: 'public', rateLimited: false };
export const AUTHENTICATED: Access = { kind: 'authenticated' };
export const roles = (...names: string[]): Access => ({ kind: 'roles', roles: names });
