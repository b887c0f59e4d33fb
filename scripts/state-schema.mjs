// Writes schema/stor-state.schema.json from the zod schema (src/core/state/schema.ts), after `npm run build`.
import { mkdirSync, writeFileSync } from 'node:fs';

const { stateJsonSchema } = await import(new URL('../dist/core/state/json-schema.js', import.meta.url));
const out = new URL('../schema/stor-state.schema.json', import.meta.url);
mkdirSync(new URL('../schema/', import.meta.url), { recursive: true });
writeFileSync(out, `${JSON.stringify(stateJsonSchema(), null, 2)}\n`);
console.log(`wrote ${out.pathname}`);
