// Integers on the wire, one definition for every module. Query strings and path segments are strings,
// so their integers are coerced; JSON bodies carry numbers, so theirs are not ("129" is a 400, see
// src/rest/json-body-types.ts). Only the type error is replaced: range errors keep zod's own wording
// ("Too big: expected number to be <=100").
import { z } from 'zod';

/** A missing value reads "is required"; a value of the wrong type reads `text`. */
export const typeError = (text: string) => ({
  error: (issue: { code: string; input?: unknown }) => (issue.input === undefined ? 'is required' : issue.code === 'invalid_type' ? text : undefined),
});

/** An integer from a query string or a path segment. */
export const queryInt = (min: number, max: number) => z.coerce.number(typeError('must be an integer')).int('must be an integer').min(min).max(max);

/** An integer in a JSON body. */
export const jsonInt = (min: number, max: number) => z.number(typeError('must be an integer')).int('must be an integer').min(min).max(max);
