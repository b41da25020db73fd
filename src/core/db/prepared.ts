// Named (server-side prepared) statements for the hottest reads: the bearer token's verification, the
// title detail, the history page and the ratings / favourites pages. PostgreSQL plans an unnamed
// statement anew each time it runs, and for the title detail planning cost as much as running it; a
// named statement is parsed once per connection and its plan reused (figures: docs/performance.md,
// 'Named prepared statements').
//
// Statements opt in (`prepared(em, q)` in sql.ts) only where their text comes from a small, fixed set of
// shapes: each distinct text is parsed once on each pooled connection and stays there. kysely sends a
// statement as text and values; the pool is given its own client class (`pg.Pool`'s `Client` option,
// passed through MikroORM's driverOptions), which sends an opted-in text under its name instead.
// Embedded mode uses it too, in the process that owns the database: PGlite's socket serves one session
// for every connection, so a name parsed by a closed connection would still exist for the next ("already
// exists"); the owner's pool has one connection, and each new one first drops every name of the session
// (forgetNames, as the pool's onConnect). Another process's connections (the CLI through the door) send
// every statement unnamed and drop nothing. Without names, a title detail cost the embedded service 2.3x
// a services-mode one in CPU; with them, 1.05-1.2x (docs/performance.md, 'Named statements in embedded
// mode').
import { createHash } from 'node:crypto';
import pg from 'pg';

/** Statement text -> its current name. */
const names = new Map<string, string>();
/** Bumped for a text whose cached plan went stale (below): its next name is parsed afresh. */
const generations = new Map<string, number>();

/**
 * More distinct texts than the opted-in templates can produce means some caller builds texts without
 * bound: past this many, texts are sent unnamed rather than kept on every connection for ever.
 */
const MAX_NAMED = 1000;

/**
 * The name a text is sent under (undefined past MAX_NAMED); the same text gets the same name in every
 * process.
 */
export function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (!name) {
    if (names.size >= MAX_NAMED) return undefined;
    name = `s_${createHash('sha1').update(text).digest('hex').slice(0, 24)}_${generations.get(text) ?? 0}`;
    names.set(text, name);
  }
  return name;
}

/**
 * PostgreSQL refuses to run a prepared statement whose result columns changed under it (a migration
 * altered a table it reads while this process runs: "cached plan must not change result type"). The
 * text then moves to a new name, which each connection parses against the schema as it is now.
 */
export function isStalePlan(err: unknown): boolean {
  return (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String((err as Error).message));
}

export function renewStatement(text: string): void {
  generations.set(text, (generations.get(text) ?? 0) + 1);
  names.delete(text);
}

type Query = (...args: unknown[]) => unknown;

/** The pool's client (services mode, embedded mode's owner): a text statementName knows (a hot read, `prepared(em, q)`) is sent as a named statement. */
export class NamedStatementClient extends pg.Client {
  // pg's query() has many overloads; kysely calls it as (text, values) with no callback, the one form changed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [config, values, callback] = args as [unknown, unknown, unknown];
    const name = typeof config === 'string' && callback === undefined && typeof values !== 'function' ? names.get(config) : undefined;
    if (name === undefined) return Reflect.apply(super.query, this, args) as unknown;
    return (super.query as Query)({ name, text: config, values });
  }
}

/**
 * Drops every named statement of the session (the pool's onConnect in embedded mode): the names an
 * earlier connection of PGlite's one session parsed, so this connection parses its own.
 */
export async function forgetNames(client: pg.Client): Promise<void> {
  await client.query('DEALLOCATE ALL');
}
