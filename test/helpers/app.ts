// Starts the real service in this process on an ephemeral port, on a database of its own.
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/core/log.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { freshDatabase } from './db.ts';

export type TestApp = RunningServer & { stop(): Promise<void> };

export async function startTestApp(env: Record<string, string> = {}, opts: { log?: Logger } = {}): Promise<TestApp> {
  const database = await freshDatabase();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: database.dataDir,
    DEMO_CATALOG: 'off',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
    ...env,
  });
  const running = await startServer(config, opts.log ?? createLogger(config.logLevel));
  return {
    ...running,
    stop: async () => {
      await running.close();
      await database.cleanup();
    },
  };
}
