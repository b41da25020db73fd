// How the pool parses the values PostgreSQL sends, for every statement: `timestamptz` (every timestamp
// column of the schema) becomes a Date by pg's own parser; `date`, `timestamp` (without time zone, only
// ever computed) and `interval` stay text, as MikroORM's PostgreSQL driver keeps them. Given to the pool
// through MikroORM's `driverOptions` (pg's `types` option), so the query builder needs no conversion pass
// after the fact: MikroORM's `convertValues` converted each row in JavaScript and cost more than running
// the statement (figures: docs/performance.md, 'Value parsing in the pool').
import pg from 'pg';

const TEXT = [1082, 1114, 1186]; // date, timestamp, interval
const TEXT_ARRAYS = [1182, 1115, 1187]; // date[], timestamp[], interval[]

export function valueTypes(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  for (const oid of TEXT) types.setTypeParser(oid, (value: string) => value);
  // text[]'s parser (1009, not in pg's list of builtins): the elements as they are written.
  const textArray = pg.types.getTypeParser(1009 as Parameters<typeof pg.types.getTypeParser>[0]);
  for (const oid of TEXT_ARRAYS) types.setTypeParser(oid, textArray);
  return types;
}
