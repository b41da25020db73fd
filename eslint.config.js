// Lint rules: typescript-eslint's recommended set, plus the house rule that src/core stays transport-free.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'coverage/', '.bench-data/', 'packages/*/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/rpc/**', '**/rest/**', '**/oauth/**', '**/jobs/**'], message: 'core/ never imports from rpc/, rest/, oauth/ or jobs/.' },
          { group: ['express', '@trpc/*', 'oidc-provider'], message: 'core/ knows no transport.' },
        ],
      }],
    },
  },
);
