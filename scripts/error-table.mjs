// Rewrites the table of README.md's "## Error codes" section from src/core/error-catalogue.ts
// (run after `npm run build`): `node scripts/error-table.mjs`. A unit test holds the two together.
import { readFileSync, writeFileSync } from 'node:fs';

const { E } = await import(new URL('../dist/core/error-catalogue.js', import.meta.url));
const { EXIT_FOR_KIND } = await import(new URL('../dist/commands/shared/exit-codes.js', import.meta.url));
const readmeUrl = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmeUrl, 'utf8');
const start = readme.indexOf('| code | exit | meaning | what to do |', readme.indexOf('## Error codes'));
const end = readme.indexOf('\n\n', start);
const rows = Object.values(E).map((e) => `| \`${e.code}\` | ${EXIT_FOR_KIND[e.kind]} | ${e.meaning} | ${e.remedy} |`);
const table = ['| code | exit | meaning | what to do |', '|---|---|---|---|', ...rows].join('\n');
writeFileSync(readmeUrl, readme.slice(0, start) + table + readme.slice(end));
console.log(`${rows.length} codes`);
