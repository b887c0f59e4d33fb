import * as z from 'zod';
import { stateFileSchema } from './schema.js';

/** The JSON Schema shipped as `schema/stor-state.schema.json` (a test holds the file to this). */
export function stateJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(stateFileSchema, { target: 'draft-2020-12' }),
    title: 'stor desired-state file',
  };
}
