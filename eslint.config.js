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
    // The logger token is the kernel's (libs/kernel/src/logger.ts): a context asks for the logger without importing
    // the infrastructure that creates it.
    files: ['**/*.ts'],
    ignores: ['libs/kernel/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "VariableDeclarator[id.name='LOGGER']",
          message: 'The logger token is defined once, in libs/kernel/src/logger.ts.',
        },
        {
          selector: "ImportDeclaration[source.value!='#kernel'] > ImportSpecifier[imported.name='LOGGER']",
          message: "Import the logger token from '#kernel'.",
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
