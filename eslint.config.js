import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import layers from './eslint.layers.js';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '**/test-artifacts/**', '**/.vite/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  // The kiosk's Svelte components: the plugin's recommended rules, TypeScript inside <script lang="ts">.
  ...svelte.configs.recommended,
  {
    files: ['**/*.svelte'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
  // Rune modules (`*.svelte.ts`) are TypeScript that the Svelte compiler reads for runes.
  {
    files: ['**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    files: ['terminal/src/renderer/**/*.{ts,svelte}', 'dashboard/src/app/**/*.{ts,svelte}', 'web/src/{lib,pages,sdk}/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  // The allowed imports between packages and between the server's layers (eslint.layers.js).
  ...layers,
);
