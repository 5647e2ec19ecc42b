// Zero-warning lint over the whole monorepo, type-aware for the TypeScript sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'libs/bridge-sdk/dist/**', 'node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through libs/kernel config only.',
        },
      ],
    },
  },
  {
    files: ['libs/kernel/src/config/**', 'test/**', '**/*.spec.ts', 'bench/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'mongodb',
              message:
                "One MongoDB client: mongoose's driver (`mongo` from 'mongoose', openMongoConnection in #kernel).",
            },
          ],
        },
      ],
    },
  },
  {
    // Deciders and events are pure (decide/evolve): nothing of Nest (dependency-cruiser checks stores and I/O).
    files: ['libs/*/src/**/*.decider.ts', 'libs/*/src/**/*.events.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@nestjs/*'], message: 'A decider or event file imports nothing of Nest.' }] },
      ],
    },
  },
  { files: ['**/*.js'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } } },
);
