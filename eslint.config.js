// ESLint over the hand-written TypeScript and JavaScript, with typescript-eslint's type-checked rules; formatting is
// Prettier's (eslint-config-prettier turns off the rules it owns). `make test` runs both.
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['generated/', 'dist/', 'node_modules/', 'wasm/', 'reports/', '.cache/', '.stryker-tmp/', '.data/', '.bench/'],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  comments.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', '*.mjs'] }, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // Every disable says why, on its own line.
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: [] }],
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['src/dashboard/assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  prettier,
);
