import * as z from 'zod';
import { once, type ParamSpec } from './method.js';

/** `filters` and `options`, the two positional params of every `*.query` (QueryArgs, MW/api/v25_10_1/common.py:67-70). */
export const queryParams = once(
  () =>
    [
      { name: 'filters', schema: z.array(z.unknown()), default: () => [] },
      { name: 'options', schema: z.record(z.string(), z.unknown()), default: () => ({}) },
    ] as const satisfies readonly ParamSpec[],
);

/** `get_instance(id, options)`: same options, the id typed per service. */
export const instanceParams = <S extends z.ZodType>(idSchema: S) =>
  [
    { name: 'id', schema: idSchema },
    { name: 'options', schema: z.record(z.string(), z.unknown()), default: () => ({}) },
  ] as const;
