// Opens the database for the service or the CLI: PostgreSQL from DATABASE_URL, or the embedded PGlite
// in DATA_DIR reached through its socket (see embedded.ts). Both go through MikroORM's PostgreSQL driver.
import { MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { migrationsList } from '../../../migrations/index.ts';
import type { Logger } from '../log.ts';
import { openEmbedded, type EmbeddedDatabase } from './embedded.ts';
import { OWN_CLIENT } from './embedded-guard.ts';
import pg from 'pg';
import { forgetNames, NamedStatementClient } from './prepared.ts';
import { reportingErrors, WriteHealth } from './write-health.ts';
import { valueTypes } from './value-types.ts';
import { reachDatabase } from './reach.ts';
import { entities } from '../schema/index.ts';
import { PostgresNamingStrategy } from './naming.ts';

export type { EntityManager };

/**
 * A transaction left open and idle on one of the service's connections (a stuck request, a bug) holds
 * back the change feed of every user (it serves nothing newer than the oldest open transaction) and
 * vacuum: PostgreSQL ends such a session after this long. The service's transactions never wait on
 * anything outside the database, so an idle one this old is a fault.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
/** The startup options every PostgreSQL connection of the service sends (pg's `options`). */
export const SESSION_OPTIONS = `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT_MS}`;

export type Database = {
  orm: MikroORM;
  mode: 'embedded' | 'services';
  embedded: EmbeddedDatabase | undefined;
  /** Whether the database can write: cannot-write failures seen on the pool, the embedded disk's free space. */
  writes: WriteHealth;
  close(): Promise<void>;
};


/**
 * Who watches the database (the server passes its metrics, core/metrics/registry.ts): the pool's use and
 * the data directory's free space, read whenever it wants them until the returned function is called
 * (when the database closes); and every statement that failed because the database cannot write.
 */
type DatabaseObserver = {
  watchPool: (read: () => { inUse: number; idle: number; waiting: number }) => () => void;
  watchFreeSpace: (read: () => Promise<number | undefined>) => () => void;
  cannotWrite: (sqlstate: string) => void;
};

export type OpenDatabaseOptions = {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Services mode: create the database DATABASE_URL names when it does not exist (DATABASE_CREATE; reach.ts). */
  createDatabase?: boolean;
  /** The server owns the embedded database; the CLI may borrow a running server's socket. */
  requireOwnership?: boolean;
  poolMax?: number;
  /**
   * Named statements (prepared.ts). Services mode: default true. Embedded mode: only when true (the server
   * and the CLI pass DATABASE_PREPARED_STATEMENTS), and only in the process that owns the database.
   */
  preparedStatements?: boolean;
  /** Embedded mode: below this many free bytes on the data directory's filesystem, writes count as failing (write-health.ts). */
  minFreeBytes?: number;
  log?: Logger;
  observer?: DatabaseObserver;
};

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  // A server that does not answer, or a database that is not there, stops here in one line (reach.ts).
  if (opts.databaseUrl) await reachDatabase(opts.databaseUrl, { create: opts.createDatabase ?? false, log: opts.log });
  const embedded = opts.databaseUrl ? undefined : await openEmbedded(opts.dataDir, { requireOwnership: opts.requireOwnership ?? false });
  const connection: Partial<Options> = embedded
    ? { host: embedded.socketDir, port: embedded.port, user: 'postgres', dbName: 'postgres' }
    : { clientUrl: opts.databaseUrl };
  const writes = new WriteHealth({ dataDir: embedded ? opts.dataDir : undefined, minFreeBytes: opts.minFreeBytes ?? 0, log: opts.log, onCannotWrite: opts.observer?.cannotWrite });
  // Named statements (prepared.ts): in services mode unless turned off; in embedded mode only when asked
  // (the server and the CLI ask) and only by the process that owns the database, whose one connection
  // drops the names of earlier ones as it opens. Every failed statement is reported to `writes`.
  const named = embedded ? opts.preparedStatements === true && embedded.owner : (opts.preparedStatements ?? true);
  const Client = reportingErrors(named ? NamedStatementClient : pg.Client, (err) => writes.noteError(err));
  try {
    const orm = await MikroORM.init({
      ...connection,
      // One entity per table (schema/index.ts); migrations stay the way the schema changes, and a test
      // checks that the entities and the migrated schema agree.
      entities: [...entities],
      namingStrategy: PostgresNamingStrategy,
      schemaGenerator: {
        skipTables: ['schema_migrations'],
        // The one trigger (title poster -> list previews) and its functions are written in migrations.
        ignoreTriggers: true,
        ignoreRoutines: true,
      },
      extensions: [Migrator],
      // Never create a missing database on connect: reach.ts has checked it exists (or created it when
      // DATABASE_CREATE says so), and a silent creation would turn a typo into an empty service.
      ensureDatabase: false,
      // New migrations are generated from the entities against a migrated database; no snapshot files.
      migrations: { migrationsList, transactional: true, allOrNothing: true, tableName: 'schema_migrations', snapshot: false },
      // The embedded socket runs one session for every connection and interleaves the extended-protocol
      // messages of concurrent connections (parse on one, bind on another: "unnamed prepared statement
      // does not exist", or another connection's rows; electric-sql/pglite#1046). PGlite executes one
      // statement at a time anyway, so one connection costs nothing and keeps each statement whole.
      pool: { min: 0, max: embedded ? 1 : (opts.poolMax ?? 10) },
      driverOptions: {
        // Timestamps parsed to Date as they arrive (value-types.ts), for every statement.
        types: valueTypes(),
        // The pool's client class (pg.Pool's `Client` option), above.
        Client,
        // Services mode: idle transactions end (above). The embedded database is this process's alone.
        ...(!embedded ? { options: SESSION_OPTIONS } : {}),
        // Through another process's embedded socket, this project's client is let in by name (embedded-guard.ts).
        ...(embedded && !embedded.owner ? { application_name: OWN_CLIENT } : {}),
        // Embedded named statements: each new connection first drops the names an earlier one parsed
        // (pg.Pool's onConnect hook, awaited before the connection is used).
        ...(embedded && named ? { onConnect: forgetNames } : {}),
      },
      // The catalog and user data are read with explicit queries; no lazy loading surprises.
      forceUtcTimezone: true,
      allowGlobalContext: false,
      debug: false,
      // MikroORM's own messages (e.g. each migration applied) go to our log, at debug level.
      logger: (message: string) => opts.log?.debug({ orm: message }),
    });
    // The pg pool behind the ORM, read by the observer when it asks (the server's metrics: at each scrape).
    const pool = await orm.em.getConnection().getNativeClient();
    const unwatch = opts.observer?.watchPool(() => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }));
    const unwatchFreeSpace = opts.observer?.watchFreeSpace(() => writes.freeBytes());
    return {
      orm,
      mode: embedded ? 'embedded' : 'services',
      embedded,
      writes,
      close: async () => {
        unwatch?.();
        unwatchFreeSpace?.();
        await orm.close(true);
        await embedded?.close();
      },
    };
  } catch (err) {
    await embedded?.close();
    throw err;
  }
}

/** Applies every committed migration not yet applied; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}
