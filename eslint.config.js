// Lint rules, including the architecture's import boundaries (see ARCHITECTURE.md "Import rules").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import svelteParser from 'svelte-eslint-parser';
import globals from 'globals';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'http', 'https', 'crypto', 'child_process', 'url', 'stream', 'events', 'util'];

/** Imports a folder may not make, as no-restricted-imports patterns. */
function forbid(groups, message) {
  return { 'no-restricted-imports': ['error', { patterns: [{ group: groups, message }] }] };
}

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'bench-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      parser: svelteParser,
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] },
    },
  },
  {
    files: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: forbid(
      ['**/main/**', '**/preload/**', '**/simulator/**', ...nodeBuiltins, 'better-sqlite3', 'keytar', 'electron'],
      'The renderer talks only to the Bridge: no main, preload, simulator or Node imports.',
    ),
  },
  {
    files: ['src/shared/**'],
    rules: forbid(
      ['**/main/**', '**/preload/**', '**/renderer/**', '**/simulator/**', ...nodeBuiltins, 'electron', 'better-sqlite3', 'keytar'],
      'src/shared is pure: it imports nothing from main, preload, renderer, simulator or Node.',
    ),
  },
  {
    files: ['src/preload/**'],
    rules: {
      ...forbid(
        ['**/main/**', '**/renderer/**', '**/simulator/**', '**/shared/api/**', '**/shared/domain/**', ...nodeBuiltins],
        'The preload imports only src/shared/channels and types from the contract.',
      ),
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '../shared/contract',
              allowTypeImports: true,
              message: 'Types only: the sandboxed preload cannot load zod.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/simulator/**'],
    rules: forbid(['**/main/**', '**/renderer/**', '**/preload/**', 'electron'], 'The simulator stands alone: it imports only src/shared.'),
  },
  {
    files: ['src/main/**'],
    ignores: ['src/main/index.ts', 'src/main/hosts/electron/**'],
    rules: forbid(['electron', '**/renderer/**', '**/preload/**'], 'The core knows nothing of Electron; only src/main/hosts/electron/ may import it.'),
  },
);
