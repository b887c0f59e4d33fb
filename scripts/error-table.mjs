// Rewrites the table of docs/ERRORS.md's "## Error codes" section from src/core/error-catalogue.ts
// (run after `npm run build`): `node scripts/error-table.mjs`. A unit test holds the two together.
import { readFileSync, writeFileSync } from 'node:fs';

const { E } = await import(new URL('../dist/core/error-catalogue.js', import.meta.url));
const { EXIT_FOR_KIND } = await import(new URL('../dist/commands/output/exit-codes.js', import.meta.url));
const docUrl = new URL('../docs/ERRORS.md', import.meta.url);
const doc = readFileSync(docUrl, 'utf8');
const start = doc.indexOf('| code | exit | meaning | what to do |', doc.indexOf('## Error codes'));
const end = doc.indexOf('\n\n', start);
const rows = Object.values(E).map((e) => `| \`${e.code}\` | ${EXIT_FOR_KIND[e.kind]} | ${e.meaning} | ${e.remedy} |`);
const table = ['| code | exit | meaning | what to do |', '|---|---|---|---|', ...rows].join('\n');
writeFileSync(docUrl, doc.slice(0, start) + table + doc.slice(end));
console.log(`${rows.length} codes`);
