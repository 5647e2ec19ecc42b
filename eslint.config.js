// Zero-warning lint over the whole monorepo, type-aware for the TypeScript sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/** The logger token is the kernel's (libs/core/kernel/src/logger.ts): a context asks for it without importing the infrastructure that creates it. */
const LOGGER_IN_KERNEL = [
  {
    selector: "VariableDeclarator[id.name='LOGGER']",
    message: 'The logger token is defined once, in libs/core/kernel/src/logger.ts.',
  },
  {
    selector: "ImportDeclaration[source.value!='#kernel'] > ImportSpecifier[imported.name='LOGGER']",
    message: "Import the logger token from '#kernel'.",
  },
];

/**
 * One place decides who may and builds every 403: the access context (libs/contexts/access). Elsewhere a command or
 * query declares what it asks (`@Requires`, read by the gate) and a route its row (read by the guard); a handler,
 * controller or resolver never asks the policy to refuse, nor builds the error itself (`permits` only shapes what a
 * list or an answer shows).
 */
const ACCESS_DECIDES = [
  {
    selector: "NewExpression[callee.name='ForbiddenError']",
    message:
      'A 403 is built by the access context: declare the ask (@Requires), or forbidden() for a refusal no policy decides.',
  },
  {
    selector:
      'CallExpression[callee.name=/^(authorize|isAllowed|assertAllowed|assertAdmin|demand|demandOfPrincipal)$/]',
    message:
      "Declare what the message asks (@Requires(Resolver, …) on the command or query: the gate asks), or the route's row.",
  },
];

/** One MongoDB client: mongoose's driver. */
const ONE_MONGODB_CLIENT = {
  name: 'mongodb',
  message: "One MongoDB client: mongoose's driver (`mongo` from 'mongoose', openMongoConnection in #kernel).",
};

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
          message: 'Read configuration through libs/core/kernel config only.',
        },
      ],
    },
  },
  {
    files: ['libs/core/kernel/src/config/**', 'test/**', '**/*.spec.ts', 'bench/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // A later block's rule replaces an earlier one's for the files both match: each block lists every selector and
    // import restriction its files carry.
    files: ['**/*.ts'],
    ignores: ['libs/core/kernel/**'],
    rules: {
      'no-restricted-syntax': ['error', ...LOGGER_IN_KERNEL],
      'no-restricted-imports': ['error', { paths: [ONE_MONGODB_CLIENT] }],
    },
  },
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['libs/core/kernel/**', 'libs/contexts/access/**', '**/*.spec.ts', '**/*.contract.ts'],
    rules: { 'no-restricted-syntax': ['error', ...LOGGER_IN_KERNEL, ...ACCESS_DECIDES] },
  },
  {
    files: ['libs/core/kernel/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [ONE_MONGODB_CLIENT] }] },
  },
  {
    // Deciders and events are pure (decide/evolve): nothing of Nest (dependency-cruiser checks stores and I/O).
    files: ['libs/*/*/src/**/*.decider.ts', 'libs/*/*/src/**/*.events.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [ONE_MONGODB_CLIENT],
          patterns: [{ group: ['@nestjs/*'], message: 'A decider or event file imports nothing of Nest.' }],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', performance: 'readonly' } },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } } },
);
