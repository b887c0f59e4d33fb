export * from './schema.js';
export { parseStateFile, formatStateFile } from './parse.js';
export { stateJsonSchema } from './json-schema.js';
export { Identities, identityValue, setObjectsAt } from './sections.js';
