// Integers on the wire, one definition for every module. A procedure's input is typed as a caller
// writes it, whichever transport carries it: JSON (/trpc, REST bodies) carries numbers, and "129" there
// is a 400. Query strings and path segments are text: the REST facade reads them into numbers before
// validation (src/rest/input-types.ts), so the schemas never coerce. Only the type error is replaced:
// range errors keep zod's own wording ("Too big: expected number to be <=100").
import { z } from 'zod';

/** A missing value reads "is required"; a value of the wrong type reads `text`. */
export const typeError = (text: string) => ({
  error: (issue: { code: string; input?: unknown }) => (issue.input === undefined ? 'is required' : issue.code === 'invalid_type' ? text : undefined),
});

/** An integer from `min` to `max`. */
export const wireInt = (min: number, max: number) => z.number(typeError('must be an integer')).int('must be an integer').min(min).max(max);

/**
 * The largest value of a PostgreSQL `integer` column (catalog ids such as movie_db_id, season and
 * episode numbers). A bigger value sent to such a column is a database error, so inputs stop here.
 */
export const PG_INT_MAX = 2_147_483_647;

/**
 * The largest id the API accepts, for every id on the wire (catalog ids, and row ids of lists, history,
 * collection items, ...). Row ids are bigint identities, far below this today; one bound for every id
 * keeps the documents and the checks simple. Raise it (it shows as `maximum` in both OpenAPI
 * documents) before a table's identity passes it.
 * @alias (of PG_INT_MAX today, by that choice)
 */
export const ID_MAX = PG_INT_MAX;

/** An id: 1 to ID_MAX. */
export const wireId = () => wireInt(1, ID_MAX);
