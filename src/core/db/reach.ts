// Services mode: the database DATABASE_URL names is reached once, before the ORM opens its pool, so a
// start that cannot work says why in one line (start-failure.ts) instead of failing later inside
// a query with a driver's stack trace:
// - a server that does not answer, or refuses the credentials: exit 3, naming DATABASE_URL;
// - a database that does not exist on it: exit 4, with the command that creates it. It is created here
//   only when DATABASE_CREATE=true says so, and that is logged. MikroORM would otherwise create a
//   missing database by itself (its `ensureDatabase` on connect, and again in its Migrator's init), so
//   a typo in the name would start a second, empty service; orm.ts turns the first off, and the second
//   then always finds the database in place.
import pg from 'pg';
import type { Logger } from '../log.ts';
import { START_EXIT, StartFailure, connectionProblem, redactUrl } from './start-failure.ts';

/** A server that has not accepted the connection in this long counts as not answering. */
const CONNECT_TIMEOUT_MS = 10_000;
/** SQLSTATE invalid_catalog_name: the database named in the connection does not exist. */
const UNDEFINED_DATABASE = '3D000';
/** SQLSTATE duplicate_database: another instance created it first (DATABASE_CREATE on a fleet). */
const DUPLICATE_DATABASE = '42P04';

type Target = { host: string; port: number; user: string; database: string };

/** Where pg connects for `url` (its own reading of the URL and of the PG* defaults). */
function targetOf(url: string): Target {
  const c = new pg.Client({ connectionString: url });
  return { host: c.host, port: c.port, user: c.user ?? '', database: c.database ?? '' };
}

/** A word for a shell: as is when it is plain, else single-quoted. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:@-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

const sqlName = (s: string) => `"${s.replaceAll('"', '""')}"`;

function missingMessage(url: string, t: Target): string {
  const createdb = `createdb -h ${shellWord(t.host)} -p ${t.port} -U ${shellWord(t.user)} ${shellWord(t.database)}`;
  return (
    `database ${JSON.stringify(t.database)} does not exist on ${t.host}:${t.port} (DATABASE_URL ${redactUrl(url)}): ` +
    `create it with \`${createdb}\` (SQL: CREATE DATABASE ${sqlName(t.database)}), or start once with DATABASE_CREATE=true to have the service create it`
  );
}

/** Connects and disconnects; the error when that failed. */
async function tryConnect(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A server that goes away mid-handshake emits 'error' besides rejecting connect().
  client.on('error', () => {});
  try {
    await client.connect();
    return undefined;
  } catch (err) {
    return err;
  } finally {
    await client.end().catch(() => {});
  }
}

function problem(err: unknown): string {
  return /timeout/i.test((err as Error).message ?? '') ? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s` : connectionProblem(err);
}

async function createDatabase(url: string, t: Target, log: Logger | undefined): Promise<void> {
  // Created from the server's management database, with the same credentials.
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query(`CREATE DATABASE ${sqlName(t.database)}`);
    log?.info({ database: t.database, host: t.host, port: t.port }, 'database created (DATABASE_CREATE=true)');
  } catch (err) {
    if ((err as { code?: string }).code === DUPLICATE_DATABASE) return;
    throw new StartFailure(`cannot create database ${JSON.stringify(t.database)} on ${t.host}:${t.port} (DATABASE_CREATE=true, DATABASE_URL ${redactUrl(url)}): ${problem(err)}`, START_EXIT.missingDatabase);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Throws StartFailure unless the database at `url` answers; a missing one is created when `create`
 * (DATABASE_CREATE=true).
 */
export async function reachDatabase(url: string, opts: { create: boolean; log?: Logger }): Promise<void> {
  const err = await tryConnect(url);
  if (err === undefined) return;
  const t = targetOf(url);
  if ((err as { code?: string }).code === UNDEFINED_DATABASE) {
    if (!opts.create) throw new StartFailure(missingMessage(url, t), START_EXIT.missingDatabase);
    await createDatabase(url, t, opts.log);
    return;
  }
  throw new StartFailure(`cannot reach the database at DATABASE_URL (${redactUrl(url)}): ${problem(err)}`, START_EXIT.unreachable);
}
