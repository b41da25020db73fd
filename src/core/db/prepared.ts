// Named (server-side prepared) statements. PostgreSQL parses and plans an unnamed
// statement anew each time it runs; a named statement is parsed once per connection and its plan reused.
// For the title detail planning cost as much as running it, and for the short statements of a write
// (a lock, a probe, an upsert of a kept figure) parsing and planning were about half of PostgreSQL's CPU
// (figures: docs/performance.md).
//
// Two ways in: the hottest reads opt in (`prepared(em, q)` in sql.ts), named from their first run; and any
// other data statement is named once the process has sent its text ADMIT_AFTER times, so the texts that
// recur (every write's statements) are named and a text built once (a rare filter, a bulk batch of an odd
// size) is not kept on every connection. Each distinct text is parsed once on each pooled connection and
// stays there, so the number of names is capped. kysely sends a statement as text and values; the pool is
// given its own client class (`pg.Pool`'s `Client` option, passed through MikroORM's driverOptions),
// which sends a named text under its name instead.
// Embedded mode uses it too when asked (the server and the CLI ask), in the process that owns the
// database: PGlite's socket serves one session for every connection, so a name parsed by a closed
// connection would still exist for the next ("already exists"); the owner's pool has one connection, and
// each new one first drops every name of the session (forgetNames, as the pool's onConnect). Another
// process's connections (the CLI through the door) send every statement unnamed and drop nothing.
// Without names, a title detail cost the embedded service 2.3x a services-mode one in CPU; with them,
// 1.05-1.2x (docs/performance.md, 'Named statements in embedded mode').
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
/** Texts named by admission (not opted in) stop at this many, leaving the rest of the cap to opted-in reads. */
const MAX_ADMITTED = 500;
/** A data statement's text is named the time it is sent this many times. */
const ADMIT_AFTER = 3;
/** Sends of the texts not yet named (forgotten whole when it grows past this many texts). */
const sends = new Map<string, number>();
const MAX_COUNTED = 5000;
let admitted = 0;
/** Statements that read or write data; not transaction control, DDL or session settings. */
const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

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

/** Whether another recurring text can still be named (both caps have room); the process's state, for tests. */
export function admissionHasRoom(): boolean {
  return admitted < MAX_ADMITTED && names.size < MAX_NAMED;
}

/** The name a data statement's text is sent under once it recurs (undefined until then, or past the cap). */
function admittedName(text: string): string | undefined {
  if (admitted >= MAX_ADMITTED || !DATA_STATEMENT.test(text)) return undefined;
  const n = (sends.get(text) ?? 0) + 1;
  if (n < ADMIT_AFTER) {
    if (sends.size >= MAX_COUNTED) sends.clear();
    sends.set(text, n);
    return undefined;
  }
  sends.delete(text);
  const name = statementName(text);
  if (name !== undefined) admitted++;
  return name;
}

export function renewStatement(text: string): void {
  generations.set(text, (generations.get(text) ?? 0) + 1);
  names.delete(text);
}

type Query = (...args: unknown[]) => unknown;

/** The pool's client where statements are named: a named text (an opted-in read, or an admitted data statement) is sent under its name. */
export class NamedStatementClient extends pg.Client {
  // pg's query() has many overloads; kysely calls it as (text, values) with no callback, the one form changed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [config, values, callback] = args as [unknown, unknown, unknown];
    const text = typeof config === 'string' && callback === undefined && typeof values !== 'function' ? config : undefined;
    const name = text === undefined ? undefined : (names.get(text) ?? admittedName(text));
    if (text === undefined || name === undefined) return Reflect.apply(super.query, this, args) as unknown;
    const sent = (super.query as Query)({ name, text, values }) as Promise<unknown>;
    // A plan gone stale under a migration: the text's next send is parsed afresh under a new name (the
    // opted-in reads also retry at once outside a transaction, sql.ts).
    sent.catch((err: unknown) => {
      if (isStalePlan(err) && names.get(text) === name) renewStatement(text);
    });
    return sent;
  }
}

/**
 * Drops every named statement of the session (the pool's onConnect in embedded mode): the names an
 * earlier connection of PGlite's one session parsed, so this connection parses its own.
 */
export async function forgetNames(client: pg.Client): Promise<void> {
  await client.query('DEALLOCATE ALL');
}
