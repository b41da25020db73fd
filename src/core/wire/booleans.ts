// Booleans of query strings. The procedure's input is a boolean, as a caller writes it (/trpc carries
// JSON); a query string is text, which the REST facade reads into a boolean from the spellings below
// before validation (src/rest/input-types.ts). Anything else stays text and is a 400 "must be true or
// false". The REST parameter is documented as those spellings, since that is what a URL carries.
import { z } from 'zod';
import { typeError } from './numbers.ts';

/** The text a query string may carry for a boolean, and the boolean each reads as. */
export const BOOLEAN_TEXT: Readonly<Record<string, boolean>> = { true: true, false: false, 1: true, 0: false };

/** A boolean filter of a query string. */
export const queryBoolean = z
  .boolean(typeError('must be true or false'))
  .meta({ override: { type: 'string', enum: Object.keys(BOOLEAN_TEXT) } });
