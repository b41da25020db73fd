// Lint rules: typescript-eslint's recommended set, plus the house rules that src/core stays transport-free,
// that its floors (schema/, db/) import no module above them, and that src/oauth never imports src/web.
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
    // One routing rule (src/rest/routing.ts): a router Express makes with its defaults matches any letter
    // case and a trailing slash, which let a path spelled another way skip the buckets keyed on it.
    files: ['src/**/*.ts'],
    ignores: ['src/rest/routing.ts'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.property.name='Router'], CallExpression[callee.name='Router']",
        message: 'Make routers with strictRouter() from src/rest/routing.ts.',
      }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/rpc/**', '**/rest/**', '**/oauth/**', '**/web/**', '**/jobs/**', '**/trakt/**'], message: 'core/ never imports from rpc/, rest/, oauth/, web/, trakt/ or jobs/.' },
          { group: ['express', '@trpc/*', 'oidc-provider'], message: 'core/ knows no transport.' },
        ],
      }],
    },
  },
  {
    // The floors under every module: the tables (schema/) import only libraries and each other; the
    // database (db/), besides libraries, only the tables, the log and the migrations.
    files: ['src/core/schema/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['../*'], message: 'schema/ imports only libraries and its own files: every module stands on it.' },
          { group: ['express', '@trpc/*', 'oidc-provider'], message: 'core/ knows no transport.' },
        ],
      }],
    },
  },
  {
    files: ['src/core/db/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: '^\\.\\./(?!schema/|log\\.ts$|\\.\\./\\.\\./migrations/index\\.ts$)', message: 'db/ imports only the tables (schema/), the log and the migrations: every module stands on it.' },
          { group: ['express', '@trpc/*', 'oidc-provider'], message: 'core/ knows no transport.' },
        ],
      }],
    },
  },
  {
    // The website stands on the authorization server (its provider, page frame, cookies), never the reverse.
    files: ['src/oauth/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/web/**'], message: 'oauth/ never imports from web/: web/ imports oauth/.' }],
      }],
    },
  },
);
