// The database's clock in queries: now() shifted by a number of seconds, so a deadline is computed where
// it is compared (one clock, whatever the instances' clocks say).
import { expressionBuilder } from 'kysely';
import type { Tables } from '../schema/index.ts';

/** now() plus or minus `secs` seconds: make_interval's positional arguments are (years, months, weeks, days, hours, mins, secs). */
export function nowShifted(op: '+' | '-', secs: number) {
  const eb = expressionBuilder<Tables, never>();
  return eb(eb.fn<Date>('now'), op, eb.fn<Date>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.val(secs)]));
}
