import { defineConfig } from 'vitest/config';

// Integration tests start the real app per file on its own database, so files run in parallel (2 cores).
// Workers are reused across files (isolate: false): each file still starts its own app on its own
// database, but the app's modules load once per worker instead of once per file. Loading them took more
// of the embedded run than any test (868 s per-file, 531 s reused, on 2 cores).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
    globalSetup: ['test/global-setup.ts'],
  },
});
