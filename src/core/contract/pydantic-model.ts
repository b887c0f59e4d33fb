import * as z from 'zod';

/**
 * A nested pydantic model (a BaseModel-typed field) as a strict object: given something that is
 * not a dictionary, pydantic refuses it with its `model_type` error, which names the model's class
 * ("Input should be a valid dictionary or instance of ReplicationRunOptions"), not the plain
 * `dict_type` words a `dict[...]` field gets. appliance/params.ts reports the message as it is.
 */
export function pydanticModel<const S extends z.core.$ZodLooseShape>(className: string, shape: S) {
  const message = `Input should be a valid dictionary or instance of ${className}`;
  return z.strictObject(shape, { error: (issue) => (issue.code === 'invalid_type' ? message : undefined) });
}

/** Whether a message is pydantic's own (as pydanticModel's), to be reported as it is, rather than zod's. */
export const isPydanticTypeMessage = (message: string) =>
  message.startsWith('Input should be a valid dictionary or instance of ');
