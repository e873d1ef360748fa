// ESLint over the hand-written TypeScript and JavaScript, with typescript-eslint's type-checked rules; formatting is
// Prettier's (eslint-config-prettier turns off the rules it owns). `make test` runs both.
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // wasm/ is AssemblyScript; examples/partner/ is a partner's own package, whose types its build generates from
    // /openapi.json (test/partner-sdk.test.ts builds and type-checks it).
    ignores: [
      'generated/',
      'dist/',
      'node_modules/',
      'wasm/',
      'examples/partner/',
      'reports/',
      '.cache/',
      '.stryker-tmp/',
      '.data/',
      '.bench/',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  comments.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', '*.mjs', 'examples/*.ts'] }, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // Every disable says why (`-- reason`).
      '@eslint-community/eslint-comments/require-description': 'error',
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
      // A leading underscore marks what is deliberately unused (a parameter an interface passes, a member left out).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An async method that implements a promise-returning interface (Kysely's driver, the counters' stores) reads
      // better than one that wraps its value in Promise.resolve; a missing await is caught by no-floating-promises.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read JSON answers as \`any\` and check them with chai: the assertion is the type check there, and chai's
    // property assertions (\`expect(x).to.be.true\`) are expressions.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
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
  {
    // Prettier wraps code at 140 but not text in strings, templates and comments; after `prettier`, whose config turns max-len off.
    plugins: { '@stylistic': stylistic },
    rules: { '@stylistic/max-len': ['error', { code: 160 }] },
  },
);
