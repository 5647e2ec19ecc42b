// Jest runs the ESM build of NestJS 12 on Node 24: ts-jest compiles each file (no type check: `npm run typecheck` does that).
// Three projects, chosen by file name:
//   unit  `*.spec.ts`            pure: deciders, projectors, parsers, schemas (no build, no servers, no processes)
//   int   `*.int.spec.ts`        adapters, SQLite, the Kafka mock cluster, worker threads, child processes, fakes
//   e2e   `test/*.e2e.spec.ts`   a started server (the build in dist/)
// `npm run test:unit` runs without a build; `test:int` and `test:e2e` build first, as `npm test` does.
const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // The `#name` aliases of package.json's imports, by layer (libs/contexts, libs/adapters, libs/core).
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^#projections$': '<rootDir>/projections/index.ts',
    '^#projections/(.*)$': '<rootDir>/projections/$1.ts',
    '^#(access|identity|spaces|agents|knowledge|conversations|memory|skills|code-execution|apps|agent-generation|model-gateway|usage|audit)$':
      '<rootDir>/libs/contexts/$1/src/index.ts',
    '^#(access|identity|spaces|agents|knowledge|conversations|memory|skills|code-execution|apps|agent-generation|model-gateway|usage|audit)/(.*)$':
      '<rootDir>/libs/contexts/$1/src/$2.ts',
    '^#(event-store|read-store|search|blob-store|message-bus|key-store|sandbox|model-providers|rate-limit-store)$':
      '<rootDir>/libs/adapters/$1/src/index.ts',
    '^#(event-store|read-store|search|blob-store|message-bus|key-store|sandbox|model-providers|rate-limit-store)/(.*)$':
      '<rootDir>/libs/adapters/$1/src/$2.ts',
    '^#(kernel|eventsourcing|http|integration-events|infrastructure|operations|testing|tokenizer)$':
      '<rootDir>/libs/core/$1/src/index.ts',
    '^#(kernel|eventsourcing|http|integration-events|infrastructure|operations|testing|tokenizer)/(.*)$':
      '<rootDir>/libs/core/$1/src/$2.ts',
  },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
};

const sources = ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/projections', '<rootDir>/scripts'];

/** @type {import('jest').Config} */
export default {
  testTimeout: 30000,
  // One temporary directory per run for the tests' data directories, removed when the run ends (temp-root.js).
  globalSetup: '<rootDir>/test/support/temp-root-setup.js',
  globalTeardown: '<rootDir>/test/support/temp-root-teardown.js',
  maxWorkers: 2,
  // A worker is replaced after a test file once its heap passes this: each file's ESM module graph (ts-jest under
  // vm modules) is never freed, and a worker that ran a few hundred files ran out of memory.
  workerIdleMemoryLimit: '1GB',
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: sources,
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.spec\\.ts$'],
    },
    { ...shared, displayName: 'int', roots: sources, testMatch: ['**/*.int.spec.ts'] },
    { ...shared, displayName: 'e2e', roots: ['<rootDir>/test'], testMatch: ['**/*.e2e.spec.ts'] },
  ],
};
