export * from './schema.js';
export { parseStateFile, formatStateFile, statePath } from './parse.js';
export { stateJsonSchema } from './json-schema.js';
