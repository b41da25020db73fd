// Starts the real service in this process on an ephemeral port, on a database of its own.
import net from 'node:net';
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/core/log.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { freshDatabase } from './db.ts';

export type TestApp = RunningServer & { stop(): Promise<void> };

/** A port free right now, so BASE_URL (the OAuth issuer) can name it before the server listens. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export async function startTestApp(env: Record<string, string> = {}, opts: { log?: Logger } = {}): Promise<TestApp> {
  const database = await freshDatabase();
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    HOST: '127.0.0.1',
    DATA_DIR: database.dataDir,
    DEMO_DATA: 'off',
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
