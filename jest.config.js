/** Jest runs the TypeScript sources as ES modules (ts-jest, transpile only; `npm run typecheck` checks types). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  // The throwaway apps of the consumer tests run their own specs, in their own installs.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/consumer/apps/'],
  globalSetup: '<rootDir>/test/helpers/global-setup.mjs',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.mjs',
  testTimeout: 30000,
};
