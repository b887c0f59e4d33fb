import * as z from 'zod';

/**
 * A union as pydantic 2 validates it in 25.10.1's strict models (smart mode): the first member that
 * accepts the value wins; when none does, every member's errors are reported, each under the
 * member's tag — a model's class name, `constrained-int`, `int`, `literal['INHERIT']` — which is how
 * 25.10.1's ValidationErrors name them (e.g. `data.PoolDatasetCreateFilesystem.quota.constrained-int`,
 * MW/api/base/handler/accept.py:74-82). Tags are given in the member order of the Python annotation.
 *
 * A type boundary: zod types a transform by what it returns, not by what it checks, so the schema
 * is asserted to take and give what its members do (what callers' params and the client's results
 * are typed by). The contract's other schemas are typed by zod itself.
 */
export function pydanticUnion<const M extends Record<string, z.ZodType>>(members: M): z.ZodType<z.output<M[keyof M]>, z.input<M[keyof M]>> {
  return z.unknown().transform((value, ctx) => {
    const issues: z.core.$ZodIssue[] = [];
    for (const [tag, schema] of Object.entries(members)) {
      const parsed = schema.safeParse(value, { reportInput: true });
      if (parsed.success) return parsed.data;
      for (const issue of parsed.error.issues) issues.push({ ...issue, path: [tag, ...issue.path] });
    }
    ctx.issues.push(...(issues as never[]));
    return z.NEVER;
  }) as unknown as z.ZodType<z.output<M[keyof M]>, z.input<M[keyof M]>>;
}
