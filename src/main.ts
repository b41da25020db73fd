// Process entry: configuration -> server (database, migrations, HTTP) -> graceful shutdown on signals.
import { loadConfigOrExit } from './config.ts';
import { createLogger } from './core/log.ts';
import { startServer } from './server.ts';

const config = loadConfigOrExit();

const log = createLogger(config.logLevel);
try {
  const running = await startServer(config, log);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await running.close();
    log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
} catch (err) {
  log.fatal({ err }, 'start-up failed');
  process.exit(1);
}
