// ESLint (flat config): the recommended JavaScript and typescript-eslint rules everywhere, plus the few type-aware
// rules that catch real bugs here (a promise nobody awaits, a promise where a callback's result is ignored). Type
// information costs a TypeScript program per tsconfig, so only rules that need it and pay for it are turned on.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'dist-test/', 'models/', 'knowledge/', 'test-artifacts/', 'bench/.cache/', 'test/clients/', '**/node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // Matching control characters is deliberate where it is done (upload file names, fuzzed header values).
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's describe() and it() return promises that the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // `typeof import('x')` stays allowed: lazily loaded modules (src/ingest/html-libraries.ts) are typed that way.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // tsconfig's noFallthroughCasesInSwitch checks this with types (it knows that process.exit() never returns).
      'no-fallthrough': 'off',
    },
  },
  {
    // Tests and benchmarks read JSON bodies of any shape; their assertions check the shape.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
);
