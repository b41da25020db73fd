// The service as a process: configuration -> server (database, migrations, HTTP) -> graceful shutdown on
// signals. main.ts runs it as deployed; `deps` are what the server is built with (server.ts ServerDeps).
import { loadConfigOrExit } from './config.ts';
import { createLogger } from './core/log.ts';
import { startServer, type ServerDeps } from './server.ts';

/** After the grace period, this long for the jobs and the pools to close before the process quits anyway. */
const CLOSE_BACKSTOP_MS = 5_000;

export async function serve(deps: ServerDeps = {}): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel);
  try {
    const running = await startServer(config, log, deps);
    let stopping = false;
    // SIGTERM (orchestrators) or SIGINT (a terminal): drain and close in order (server.ts close), exit 0.
    // A second signal, or a close that hangs past the grace period and the backstop, exits 1 at once.
    const stop = (signal: string) => {
      if (stopping) {
        log.warn({ signal }, 'second signal: exiting without finishing the shutdown');
        process.exit(1);
      }
      stopping = true;
      log.info({ signal, grace_ms: config.shutdownGraceMs }, 'shutting down');
      setTimeout(() => {
        log.error('shutdown did not finish in time: exiting');
        process.exit(1);
      }, config.shutdownGraceMs + CLOSE_BACKSTOP_MS).unref();
      running.close().then(
        () => {
          log.info('stopped');
          process.exit(0);
        },
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  } catch (err) {
    log.fatal({ err }, 'start-up failed');
    process.exit(1);
  }
}
