import { defineConfig } from 'vitest/config';

// Two projects, by folder:
// - unit (test/unit/): code called directly; the file starts no app, opens no database and needs no
//   global setup, so `npx vitest run --project unit` runs without making the embedded template.
// - integration (test/*.test.ts): the real app, or a database of the file's own, per file. Its global
//   setup (test/global-setup.ts) runs only when one of its files does.
// `npm test` runs both.
//
// Files run in parallel (2 cores). Workers are reused across files (isolate: false): each integration
// file still starts its own app on its own database, but the app's modules load once per worker instead
// of once per file. Loading them took more of the embedded run than any test (868 s per-file, 531 s
// reused, on 2 cores).
//
// The timeouts only turn a hang into a failure: tests wait on events (test/helpers/wait.ts), not on the
// clock, and a machine shared with other work runs them several times slower than an idle one (a
// demo import of 30 s took 155-181 s at load 16). A rule with a time in it is asserted by its test.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
