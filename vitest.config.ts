import { defineConfig } from 'vitest/config';

// Integration tests start the real app per file on its own database, so files run in parallel (2 cores).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
