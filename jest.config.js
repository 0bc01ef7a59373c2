// Tests run on the compiled JavaScript in dist/ (npm test builds first), so they exercise
// the same files production runs, including the piscina worker files.
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/test'],
  testMatch: ['**/*.test.js'],
  testTimeout: 60000,
  maxWorkers: 2,
};
