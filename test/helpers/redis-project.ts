// Set up for the jest project that runs the HTTP API suite on the Redis store.
process.env.FW_TEST_STORE = 'redis';
