// The service as a process: configuration -> server (database, migrations, HTTP) -> graceful shutdown on
// signals. main.ts runs it as deployed; `deps` are what the server is built with (server.ts ServerDeps).
import { loadConfigOrExit } from './config.ts';
import { createLogger } from './core/log.ts';
import { startServer, type ServerDeps } from './server.ts';
import { StartFailure } from './core/db/start-failure.ts';

/** After the grace period, this long for the jobs and the pools to close before the process quits anyway. */
const CLOSE_BACKSTOP_MS = 5_000;
/** Under `npm start`, the same signal again within this long of the first is a copy of it (see stop). */
const NPM_COPY_MS = 1_000;

/**
 * Whether npm started this process (`npm start`, whose script execs node: package.json). npm forwards
 * SIGINT and SIGTERM to its child; a terminal's Ctrl-C (or a kill of the whole process group) reaches
 * npm and this process alike, so this process gets that one signal twice, at once.
 */
const underNpmStart = process.env.npm_lifecycle_event === 'start';

export async function serve(deps: ServerDeps = {}): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel);
  try {
    const running = await startServer(config, log, deps);
    let first: { signal: string; at: number } | undefined;
    // SIGTERM (orchestrators) or SIGINT (a terminal): drain and close in order (server.ts close), exit 0.
    // A second signal, or a close that hangs past the grace period and the backstop, exits 1 at once;
    // under npm, the same signal within NPM_COPY_MS of the first is npm's copy of it, not a second one.
    const stop = (signal: string) => {
      if (first) {
        if (underNpmStart && signal === first.signal && performance.now() - first.at < NPM_COPY_MS) return;
        log.warn({ signal }, 'second signal: exiting without finishing the shutdown');
        process.exit(1);
      }
      first = { signal, at: performance.now() };
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
    // What the operator fixes outside the code (a database, a port): its one line, its exit code.
    if (err instanceof StartFailure) {
      process.stderr.write(`${err.message}\n`);
      process.exit(err.exitCode);
    }
    log.fatal({ err }, 'start-up failed');
    process.exit(1);
  }
}
