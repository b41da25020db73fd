// A JavaScript value for a jsonb column or expression, sent as one parameter holding its JSON text. pg would
// send a JavaScript array as a PostgreSQL array literal (and a string as text that is not JSON), so every
// JSON value the service writes goes through here.
import { expressionBuilder, type AliasableExpression } from 'kysely';
import type { Tables } from '../schema/index.ts';

const eb = expressionBuilder<Tables, never>();

export function jsonb<T>(value: T): AliasableExpression<T> {
  return eb.cast<T>(eb.val(JSON.stringify(value)), 'jsonb');
}

/** As jsonb(), with null kept as SQL NULL (not the JSON value null). */
export function jsonbOrNull<T>(value: T | null): AliasableExpression<T> | null {
  return value === null ? null : jsonb(value);
}
