import * as z from 'zod';

/**
 * Schemas the contract writes in more detail than 25.10.1's model, or as they travel rather than
 * as the model types them, with the JSON schema pydantic gives the model's field. That is what
 * `core.get_methods` describes (MW/api/base/jsonschema.py:10-15): a datetime travels as
 * `{"$date": ms}` but is modeled `datetime`; a field the model types `dict` is an open object
 * however much of it the contract spells out.
 */
export const MODEL_SCHEMAS = z.registry<{ jsonSchema: Record<string, unknown> }>();

/** `schema`, described to `core.get_methods` as `jsonSchema` (see `MODEL_SCHEMAS`). */
export function modeledAs<S extends z.ZodType>(schema: S, jsonSchema: Record<string, unknown>): S {
  MODEL_SCHEMAS.add(schema, { jsonSchema });
  return schema;
}

/** pydantic's schema of a `dict` field. */
export const PYDANTIC_DICT = { type: 'object', additionalProperties: true } as const;
