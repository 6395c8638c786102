/** Jest runs the TypeScript sources as ES modules (ts-jest, transpile only; `npm run typecheck` checks types). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  // The throwaway apps of the consumer tests run their own specs, in their own installs.
  // test/postgres-suites runs the engine, flow, throughput and ops specs again on PostgreSQL: `npm run test:postgres`
  // (long; the default run has the store contract and the transactional-enqueue specs on PostgreSQL).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/consumer/apps/', '<rootDir>/test/postgres-suites/'],
  globalSetup: '<rootDir>/test/helpers/global-setup.mjs',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.mjs',
  testTimeout: 30000,
  // Two workers on CI's two cores: most suites wait on Redis, timers and child processes, so two at
  // once took the whole run from 14.6 to 9.2 minutes of tests (912 tests, this 2-core machine).
  maxWorkers: 2,
  // Every suite a worker runs stays in its memory (ES modules under --experimental-vm-modules are
  // never freed: about 12 MB a suite, jestjs/jest#14605); a worker past 1 GB took longer than Jest's
  // 500 ms to exit at the end and was killed ("failed to exit gracefully"). Recycled past this instead.
  workerIdleMemoryLimit: '700MB',
};
