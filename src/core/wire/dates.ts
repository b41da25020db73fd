// Dates and date-times on the wire, one range for every module. PostgreSQL cannot read every date
// JavaScript writes: year 0000 (`0000-12-31T23:00:00.000Z`, what `0001-01-01T00:00:00+01:00` becomes)
// and years past 9999 (`+010000-01-01...`) are database errors, reached from ordinary-looking input
// once an offset is applied or a window (an hour, a calendar's 31 days) is added. So every date the API
// reads falls in years 1800 to 2999 (UTC), the range the catalog's years use, or it is a 400.
import { z } from 'zod';
import { typeError } from './numbers.ts';

const FIRST_WIRE_TIME_MS = Date.parse('1800-01-01T00:00:00Z');
/** Exclusive. */
const END_WIRE_TIME_MS = Date.parse('3000-01-01T00:00:00Z');
const OUT_OF_RANGE = 'must be from year 1800 to 2999';

const inWireRange = (ms: number) => ms >= FIRST_WIRE_TIME_MS && ms < END_WIRE_TIME_MS;
/** Text that is no date at all gets the format's message alone, not this one as well. */
const rangeCheck = (ms: number) => Number.isNaN(ms) || inWireRange(ms);

/** An ISO 8601 date-time with `Z` or an offset, from 1800 to 2999 (UTC); stays a string. */
export const wireDateTime = (error?: string) =>
  z.iso.datetime({ offset: true, ...(error ? { error } : {}) }).refine((s) => rangeCheck(Date.parse(s)), OUT_OF_RANGE);

/** A watch or a rating may be dated up to this far ahead of the server's clock (clients' clocks drift). */
export const FUTURE_SKEW_MS = 5 * 60_000;
export const IN_FUTURE = 'must not be in the future';
/** The one rule for "not in the future", on every route that takes a watch's or a rating's date. */
export const notInFuture = (ms: number) => ms <= Date.now() + FUTURE_SKEW_MS;

/** A real calendar day written YYYY-MM-DD (2026-02-30 is refused), from 1800 to 2999. */
export const wireDay = () =>
  z
    .string(typeError('must be a date'))
    .refine((s) => {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
      const d = new Date(`${s}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
    }, 'must be a date written YYYY-MM-DD')
    .refine((s) => rangeCheck(Date.parse(`${s}T00:00:00Z`)), OUT_OF_RANGE);
