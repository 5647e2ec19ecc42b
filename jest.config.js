// Jest runs the ESM build of NestJS 12 on Node 24: ts-jest compiles each file (no type check: `npm run typecheck` does that).
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/projections', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^#projections$': '<rootDir>/projections/index.ts',
    '^#projections/(.*)$': '<rootDir>/projections/$1.ts',
    '^#([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^#([a-z-]+)/(.*)$': '<rootDir>/libs/$1/src/$2.ts',
  },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testTimeout: 30000,
  maxWorkers: 2,
};
