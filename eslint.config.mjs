// Lint enforces the boundaries of docs/style.md: no deep imports across workspaces, no cycles,
// no floating promises, consistent type imports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * A workspace is imported through its package entry or a subpath it exports (`subpaths`), never
 * by a path into another workspace's sources.
 */
const deepImports = (subpaths) => ({
  group: [
    '@voicegw/*/*',
    ...subpaths.map((subpath) => `!${subpath}`),
    '**/shared/src/**',
    '**/api/src/**',
    '**/media-node/src/**',
    '**/simulator/src/**',
    '**/tools/src/**',
  ],
  message:
    'Import another workspace through its package entry (@voicegw/<name>, or a ' +
    'subpath it exports such as @voicegw/shared/bus).',
});

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'tools/bench/report/**',
      'sdk/dist/**',
      'charts/**',
      '**/*.mjs',
      'loadtest/**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ alwaysTryTypes: true })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Fastify plugins and hooks are async by contract, with or without an await inside.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // Cycles of runtime imports. It skips `import type` (no option changes that), so
      // tools/test/import-cycles.test.ts checks every import, type-only ones included.
      'import-x/no-cycle': 'error',
      // The api's domain is what the routes and plugins are built on: it imports neither.
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: './api/src/domain',
              from: ['./api/src/routes', './api/src/plugins'],
              message: 'The domain cannot depend on routes or plugins: move what both need here.',
            },
          ],
        },
      ],
      // A promise nobody awaits must not be able to reject unhandled (Node then ends the process):
      // `void p.finally(f)` and `void p.then(f)` rethrow p's rejection, and `void session.serial()`
      // drops it. Use background(p, log, what) from @voicegw/shared, or session.enqueue(task).
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "UnaryExpression[operator='void'] > CallExpression[callee.property.name='finally']",
          message:
            'void p.finally(...) rethrows a rejection unhandled: use background(p, log, what).',
        },
        {
          selector:
            "UnaryExpression[operator='void'] > CallExpression[callee.property.name='then'][arguments.length=1]",
          message: 'void p.then(f) rethrows a rejection unhandled: handle it, or use background().',
        },
        {
          selector:
            "UnaryExpression[operator='void'] > CallExpression[callee.property.name='serial']",
          message:
            'A queued task nobody awaits: use session.enqueue(task), which logs its failure.',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            deepImports([
              '@voicegw/shared/bus',
              '@voicegw/simulator/client',
              '@voicegw/tools/launcher',
              '@voicegw/tools/generate',
            ]),
          ],
        },
      ],
    },
  },
  {
    // What the gateway runs in production loads no development tooling: @voicegw/tools (launcher,
    // provisioning, test helpers) is for npm start, tests, CI and the benchmark only.
    // tools/test/production-entries.test.ts checks the same of every entry's import graph.
    files: [
      'shared/src/**/*.ts',
      'api/src/**/*.ts',
      'media-node/src/**/*.ts',
      'media-node/simulator/src/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            deepImports(['@voicegw/shared/bus']),
            {
              group: ['@voicegw/tools', '@voicegw/tools/*', '@voicegw/bench', '**/tools/**'],
              message: 'Production code cannot load development tooling (@voicegw/tools).',
            },
          ],
        },
      ],
    },
  },
  {
    // The SDK is published on its own: its sources import nothing of the other workspaces (its
    // types come from sdk/src/contract.ts, generated from their schemas).
    files: ['sdk/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@voicegw/*', '../../*'],
              message: 'The published SDK cannot import the gateway; use sdk/src/contract.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/test/**/*.ts', 'tools/bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
);
