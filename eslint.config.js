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
  {
    // One place decides who may and builds every 403: the access context (libs/access). Elsewhere a handler or a
    // loader asks it through `demand`, `permits` or the guard's route row, never the policy or the error itself.
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['libs/access/**', '**/*.spec.ts', '**/*.contract.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='ForbiddenError']",
          message:
            'A 403 is built by the access context: demand(), or forbidden() for a refusal no policy decides.',
        },
        {
          selector: 'CallExpression[callee.name=/^(authorize|isAllowed|assertAllowed|assertAdmin)$/]',
          message: 'Ask the access context: demand() or permits(), or the route row the guard enforces.',
        },
      ],
    },
  },
  { files: ['**/*.js'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } } },
);
