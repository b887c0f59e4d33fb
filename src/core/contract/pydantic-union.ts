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
export function pydanticUnion<const M extends Record<string, z.ZodType>>(
  members: M,
): z.ZodType<z.output<M[keyof M]>, z.input<M[keyof M]>> {
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

/**
 * A union with `discriminator=<field>`, as pydantic 2 validates it: the member is the one whose tag
 * the value's field names, its errors under that tag (`data.FILESYSTEM.quota`); a tag no member has
 * is pydantic-core's `union_tag_invalid`, a value that is no object its `model_attributes_type`.
 * `fallback` is the tag a value without the field gets, as a `mode='before'` validator may set it
 * (stable/26 MW/api/v26_0_0/pool_dataset.py:669-676). The same type boundary as `pydanticUnion`.
 */
export function pydanticTaggedUnion<const M extends Record<string, z.ZodType>>(
  field: string,
  members: M,
  fallback?: keyof M & string,
): z.ZodType<z.output<M[keyof M]>, z.input<M[keyof M]>> {
  const tags = Object.keys(members);
  return z.unknown().transform((value, ctx) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      ctx.issues.push({
        code: 'custom',
        message: 'Input should be a valid dictionary or object to extract fields from',
        input: value,
        params: { verbatim: true },
      } as never);
      return z.NEVER;
    }
    const given = (value as Record<string, unknown>)[field];
    const tag = given === undefined && fallback !== undefined ? fallback : given;
    const schema = typeof tag === 'string' && Object.hasOwn(members, tag) ? members[tag] : undefined;
    if (!schema) {
      const expected = tags.map((t) => `'${t}'`).join(', ');
      const message =
        given === undefined
          ? `Unable to extract tag using discriminator '${field}'`
          : `Input tag '${String(given)}' found using '${field}' does not match any of the expected tags: ${expected}`;
      ctx.issues.push({ code: 'custom', message, input: value, params: { verbatim: true } } as never);
      return z.NEVER;
    }
    const parsed = schema.safeParse(given === undefined ? { ...value, [field]: tag } : value, { reportInput: true });
    if (parsed.success) return parsed.data;
    ctx.issues.push(
      ...(parsed.error.issues.map((issue) => ({ ...issue, path: [tag as string, ...issue.path] })) as never[]),
    );
    return z.NEVER;
  }) as unknown as z.ZodType<z.output<M[keyof M]>, z.input<M[keyof M]>>;
}
