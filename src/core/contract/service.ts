import type * as z from 'zod';
import { defineContract, type ContractSpec, type MethodContract, type ParamSpec } from './method.js';

/** One method as a service lists it: its contract without the name, which the service gives it. */
export type MethodSpec<P extends readonly ParamSpec[] = readonly ParamSpec[], R extends z.ZodType = z.ZodType> = Omit<
  ContractSpec<P, R>,
  'name'
>;

/** A method written in a service's list; `const` keeps its params a tuple, so handlers get one typed argument each. */
export const method = <const P extends readonly ParamSpec[], R extends z.ZodType>(
  spec: MethodSpec<P, R>,
): MethodSpec<P, R> => spec;

/** The contracts of a service's methods, keyed and named `<namespace>.<method>`. */
export type ServiceContract<N extends string, S> = {
  [K in keyof S & string as `${N}.${K}`]: S[K] extends MethodSpec<infer P, infer R> ? MethodContract<P, R> : never;
};

/**
 * The methods of one service (`group`, `pool.dataset`), each written once under its short name:
 * `service('group', { query: … })` is `{ 'group.query': defineContract({ name: 'group.query', … }) }`,
 * in the order written (the order `core.get_methods` lists them in).
 */
export function service<const N extends string, S extends Record<string, MethodSpec>>(
  namespace: N,
  specs: S,
): ServiceContract<N, S> {
  const contracts: Record<string, MethodContract> = {};
  for (const [short, spec] of Object.entries(specs)) {
    const name = `${namespace}.${short}`;
    contracts[name] = defineContract({ name, ...spec });
  }
  return contracts as ServiceContract<N, S>;
}
