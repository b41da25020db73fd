// Starts the real service in this process on an ephemeral port, on a database of its own.
import net from 'node:net';
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/core/log.ts';
import { startServer, type RunningServer, type ServerDeps } from '../../src/server.ts';
import { freshDatabase, type TestDatabase } from './db.ts';

export type TestApp = RunningServer & { database: TestDatabase; stop(): Promise<void> };

/** A port free right now, so BASE_URL (the OAuth issuer) can name it before the server listens. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * `sameDatabaseAs` starts a second instance on another app's database (services mode: instances of
 * one deployment share PostgreSQL and, given the same REDIS_KEY_PREFIX, their rate limits). `database`:
 * a database of the test's own (freshDatabase), which outlives the app (a start after another one's
 * stop). `deps`: what the app is built with besides its configuration (a test's importers, say).
 */
export async function startTestApp(
  env: Record<string, string> = {},
  opts: { log?: Logger; sameDatabaseAs?: TestApp; database?: TestDatabase; deps?: ServerDeps } = {},
): Promise<TestApp> {
  const shared = opts.database ?? opts.sameDatabaseAs?.database;
  const database = shared ?? (await freshDatabase());
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    HOST: '127.0.0.1',
    DATA_DIR: database.dataDir,
    DEMO_DATA: 'off',
    // The real limits (core/limits/table.ts) would stop the many OAuth requests of other test files from one address;
    // rate-limit tests turn them on. Keys get a prefix of their own: parallel files share one Redis.
    RATE_LIMITS: 'off',
    // The trophy job would award (and notify) behind other files' backs on a timer; trophy tests run it by hand.
    TROPHY_INTERVAL_MS: '0',
    REDIS_KEY_PREFIX: `test${process.pid}_${port}`,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
    ...env,
  });
  const running = await startServer(config, opts.log ?? createLogger(config.logLevel), opts.deps);
  return {
    ...running,
    database,
    stop: async () => {
      await running.close();
      if (!shared) await database.cleanup();
    },
  };
}
