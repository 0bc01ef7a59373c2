// Tests run on the compiled JavaScript in dist/ (npm test builds first), so they exercise
// the same files production runs, including the piscina worker files. The HTTP API suite
// runs twice: on the embedded store, and on a throwaway redis-server per daemon (the
// "redis" project), and so does the store contract (test/store/conformance.test.ts); the
// kill -9 durability test is the embedded store's own.
// the environment removes each test file's temporary folders (test/helpers/temp-dirs.ts)
const common = { testEnvironment: '<rootDir>/dist/test/helpers/test-environment.js' };
module.exports = {
  maxWorkers: 2,
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'embedded', roots: ['<rootDir>/dist/test'], testMatch: ['**/*.test.js'] },
    {
      ...common,
      displayName: 'redis',
      roots: ['<rootDir>/dist/test/api', '<rootDir>/dist/test/store'],
      testMatch: ['**/api/**/*.test.js', '**/store/conformance.test.js'],
      testPathIgnorePatterns: ['/persistence\\.test\\.js$'],
      setupFiles: ['<rootDir>/dist/test/helpers/redis-project.js'],
    },
  ],
};
