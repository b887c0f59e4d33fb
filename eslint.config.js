// @ts-check
// The linter: rules that catch defects in this code base, not matters of taste (layout is Prettier's,
// .prettierrc.json). TypeScript files are linted with type information (the one tsconfig.json covers
// src/, test/ and vitest.config.ts); the .mjs/.cjs scripts without it. `npm run lint` runs this and
// knip (knip.json: unused files, exports and dependencies). docs/ARCHITECTURE.md, "Lint and format".
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What Node.js gives a script without an import: the .mjs/.cjs files name nothing else. */
const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'structuredClone',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'fetch',
    'performance',
    'queueMicrotask',
    'WebSocket',
  ].map((name) => [name, 'readonly']),
);
const COMMONJS_GLOBALS = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
};

/** `_name` says "deliberately unused": a parameter a signature needs, or a key dropped by a rest destructuring. */
const UNUSED_VARS = [
  'error',
  {
    argsIgnorePattern: '^_',
    varsIgnorePattern: '^_',
    caughtErrorsIgnorePattern: '^_',
    destructuredArrayIgnorePattern: '^_',
    ignoreRestSiblings: true,
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/tmp/**', 'schema/**', '.cache/**'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // On, and the reason the linter is here: a promise nobody awaits loses its rejection (an
      // unhandled rejection ends Node), and an async callback where a void one is expected (an
      // event handler, forEach) runs unawaited. `void p` is allowed where the comment says why.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // `return p` inside try/catch/finally skips the catch and runs the finally early (only that
      // half: an `await` elsewhere is taste).
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      // A switch over a union that misses a member (a new job state, a new target kind) is a defect.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': UNUSED_VARS,

      // Off: `any` is how the tests read JSON answers and how src/ takes values it checks at run
      // time (zod, the contract); these ~850 findings name no defect (tsc --strict covers the rest).
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Off: an async function without await is still worth having: a throw becomes a rejection and
      // the signature matches its interface (Transport.close, a verb's run).
      '@typescript-eslint/require-await': 'off',
      // Off: String(value) of a decoded JSON value is Python's str() on purpose (python-repr.ts,
      // params.ts), and ws's RawData is a Buffer under the default binaryType.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      // Off: a `catch (err) => ... Promise.reject(err)` rethrows what was caught, whatever it is;
      // python-json.ts throws a StopIteration value as control flow, the way Python's decoder does.
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/only-throw-error': 'off',
      // Off: methods handed on are bound or do not use `this` (Node's stream and socket methods
      // passed as references are called through their object); 13 findings, none a defect.
      '@typescript-eslint/unbound-method': 'off',
      // Off: taste, or a redundant cast that changes nothing at run time; fixing them would be churn
      // across files other work is editing.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      '@typescript-eslint/no-empty-object-type': 'off',
      'prefer-const': 'off',
      'no-regex-spaces': 'off',
      // Off: control characters in a pattern are what the terminal-escape filters are for.
      'no-control-regex': 'off',
      // Off: the errors that wrap another say what it said in their message (a user reads the message,
      // not a cause chain).
      'preserve-caught-error': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', globals: NODE_GLOBALS },
    rules: { 'no-unused-vars': UNUSED_VARS, 'no-control-regex': 'off', 'preserve-caught-error': 'off' },
  },
  {
    files: ['**/*.cjs', 'bin/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: { ...NODE_GLOBALS, ...COMMONJS_GLOBALS } },
    rules: { 'no-unused-vars': UNUSED_VARS },
  },
);
