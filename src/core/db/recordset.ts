// Many rows as one parameter: a JSON array of row objects, read on the server as a table by
// json_to_recordset. One statement and the same text whatever the number of rows, and no limit on bound
// parameters. json, not jsonb: it is read once, so converting it to jsonb first would be wasted work.
import { sql, type AliasedRawBuilder } from 'kysely';

/**
 * The rows as the table `alias(columns)`. `columns` is the column definition list json_to_recordset
 * requires (e.g. `idx integer, type text`), always written in code, never taken from input. `rows` may be
 * the JSON text already.
 */
export function recordset<R, A extends string>(rows: readonly object[] | string, alias: A, columns: string): AliasedRawBuilder<R, A> {
  // Text as given (also a statement's stand-in value while it is compiled once: compiled-once.ts).
  const json = Array.isArray(rows) ? JSON.stringify(rows) : rows;
  // raw: json_to_recordset needs a column definition list, which the query builder cannot write
  return sql<R>`json_to_recordset(${json}::json)`.as<A>(sql`${sql.id(alias)}(${sql.raw(columns)})`);
}
