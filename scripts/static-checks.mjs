// The checks npm test runs before the suite: ESLint, knip, Prettier's check and the type check of
// src/ and test/ (docs/ARCHITECTURE.md "Lint and format"; vitest runs the tests untyped). Each is
// single-threaded; ESLint, the longest (it builds the TypeScript program), runs beside the other
// three, which run one after the other and together take about as long: on this project's 2-core
// machines the four take the time of ESLint alone (bench/HISTORY.md, 2026-11-29). Each tool's output is printed whole when it ends, never
// interleaved; the exit code is 1 when any of them failed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs one tool from node_modules/.bin, its output kept until it ends. */
function run(tool, args) {
  return new Promise((resolve) => {
    const child = spawn(`node_modules/.bin/${tool}`, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (err) => resolve({ tool, ok: false, output: `${tool}: ${err.message}\n` }));
    child.on('close', (code, signal) => {
      const text = Buffer.concat(output).toString();
      resolve({ tool, ok: code === 0, output: signal ? `${text}${tool}: ended by ${signal}\n` : text });
    });
  });
}

function report({ tool, ok, output }) {
  process.stdout.write(`> ${tool}: ${ok ? 'passed' : 'FAILED'}\n${output}`);
  return ok;
}

async function inTurn(...steps) {
  const results = [];
  for (const [tool, args] of steps) results.push(await run(tool, args));
  return results;
}

const [eslint, rest] = await Promise.all([
  run('eslint', ['.']),
  inTurn(['knip', ['--no-progress']], ['prettier', ['--check', '.']], ['tsc', ['-p', 'tsconfig.json', '--noEmit']]),
]);
const ok = [eslint, ...rest].map(report).every(Boolean);
if (!ok)
  process.stdout.write(
    '\nnpm run lint, npm run format:check and npm run typecheck run these one at a time; npm run format fixes the format.\n',
  );
process.exitCode = ok ? 0 : 1;
