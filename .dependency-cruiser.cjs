// Layering of the monorepo, checked by `npm run lint` (and so by CI). One rule per sentence of the design:
// contexts use each other only through their index.ts; kernel imports nothing of ours; libs/ never imports
// projections/, apps/, test/ or bench/; no import cycles.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules form no cycle (a cycle through a barrel breaks ESM initialisation order).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'libs-not-upward',
      severity: 'error',
      comment:
        'libs/ never imports projections/, apps/, test/ or bench/: read-model contracts live in the contexts.',
      from: { path: '^libs/' },
      to: { path: '^(projections|apps|test|bench)/' },
    },
    {
      name: 'kernel-imports-nothing-of-ours',
      severity: 'error',
      comment: 'The kernel is the bottom layer.',
      from: { path: '^libs/kernel/' },
      to: { path: '^(libs/(?!kernel/)|projections/|apps/)' },
    },
    {
      name: 'contexts-through-index',
      severity: 'error',
      comment: "A context uses another only through that context's index.ts (its public face).",
      from: {
        path: '^libs/([^/]+)/',
        pathNot: ['\\.(spec|contract)\\.ts$', '^libs/testing/', '^libs/platform/src/platform\\.module\\.ts$'],
      },
      to: { path: '^libs/', pathNot: ['^libs/$1/', '^libs/[^/]+/src/index\\.ts$'] },
    },
    {
      name: 'platform-adapters-only',
      severity: 'error',
      comment: 'The platform module composes the production adapters; nothing else reaches into another lib.',
      from: { path: '^libs/platform/src/platform\\.module\\.ts$' },
      to: {
        path: '^libs/',
        pathNot: [
          '^libs/platform/',
          '^libs/[^/]+/src/index\\.ts$',
          '^libs/[^/]+/src/(sqlite|mongodb|kurrentdb|elasticsearch|fs|kafka)/',
        ],
      },
    },
    {
      name: 'tests-reach-libs-only-through-their-packages',
      severity: 'error',
      comment:
        'Specs in one lib may use another lib (adapters included) but never projections/, apps/ or bench/.',
      from: { path: '^libs/.*\\.(spec|contract)\\.ts$' },
      to: { path: '^(apps|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@agent-platform/source', 'import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
    moduleSystems: ['es6'],
  },
};
