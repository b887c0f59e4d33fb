import type * as z from 'zod';
import { queryResult, type Access } from './method.js';
import { queryParams, instanceParams } from './query.js';
import { method, type MethodSpec } from './service.js';

/** The `options` a delete takes after the id, and what it is when left out. */
export interface DeleteOptions<S extends z.ZodType> {
  schema: () => S;
  default: () => unknown;
}

type IdParam<I extends z.ZodType> = { readonly name: 'id'; readonly schema: I };
type OptionsParam<S extends z.ZodType> = { name: 'options'; schema: S; default: () => unknown };

/**
 * The standard methods of a CRUD service (`MW/service/crud_service.py`), for one entry and id:
 * query and get_instance read with `read`; create, update and delete change with `write` (delete
 * with its own roles where the service has `role_separate_delete`). Each takes the method's
 * summary and what differs between services: the create and update models, their argument names
 * and results, the delete options.
 */
export function crud<Shape extends z.ZodRawShape, I extends z.ZodType>(
  entry: () => z.ZodObject<Shape>,
  id: () => I,
  access: { read: Access; write: Access },
) {
  const idParam = (): IdParam<I> => ({ name: 'id', schema: id() });
  function remove<R extends z.ZodType>(
    summary: string,
    result: () => R,
    more?: { access?: Access },
  ): MethodSpec<readonly [IdParam<I>], R>;
  function remove<R extends z.ZodType, S extends z.ZodType>(
    summary: string,
    result: () => R,
    more: { access?: Access; options: DeleteOptions<S> },
  ): MethodSpec<readonly [IdParam<I>, OptionsParam<S>], R>;
  function remove(
    summary: string,
    result: () => z.ZodType,
    more: { access?: Access; options?: DeleteOptions<z.ZodType> } = {},
  ): MethodSpec {
    const { options } = more;
    const params = () =>
      options ? [idParam(), { name: 'options', schema: options.schema(), default: options.default }] : [idParam()];
    return { summary, access: more.access ?? access.write, params, result };
  }
  return {
    query: (summary: string) =>
      method({ summary, access: access.read, params: queryParams, result: () => queryResult(entry()) }),
    get_instance: (summary: string) =>
      method({ summary, access: access.read, params: () => instanceParams(id()), result: () => entry() }),
    create: <const A extends string, C extends z.ZodType, R extends z.ZodType>(
      summary: string,
      arg: A,
      schema: () => C,
      result: () => R,
    ) => method({ summary, access: access.write, params: () => [{ name: arg, schema: schema() }], result }),
    update: <const A extends string, U extends z.ZodType, R extends z.ZodType>(
      summary: string,
      arg: A,
      schema: () => U,
      result: () => R,
    ) => method({ summary, access: access.write, params: () => [idParam(), { name: arg, schema: schema() }], result }),
    delete: remove,
  };
}
