// The calendar's range as the URL holds it (`?start=YYYY-MM-DD&days=N`), so a week can be shared and
// reloaded: read with defaults (today in the person's time zone, a week), moved a range back or forward.
const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 7;
const MAX_DAYS = 31;

export type Range = { start: string; days: number };

/** The day `d` falls on, in the local time zone, as YYYY-MM-DD. */
function today(d = new Date()): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const utc = (day: string) => Date.parse(`${day}T00:00:00Z`);
const isDay = (s: string | null): s is string => !!s && /^\d{4}-\d{2}-\d{2}$/.test(s) && new Date(utc(s)).toISOString().startsWith(s);

/** A day `n` days after `day` (calendar days, no time zone involved). */
export function addDays(day: string, n: number): string {
  return new Date(utc(day) + n * DAY_MS).toISOString().slice(0, 10);
}

export function readRange(search: string): Range {
  const params = new URLSearchParams(search);
  const start = params.get('start');
  const days = Number(params.get('days'));
  return {
    start: isDay(start) ? start : today(),
    days: Number.isInteger(days) && days >= 1 && days <= MAX_DAYS ? days : DEFAULT_DAYS,
  };
}

export function rangeHref(r: Range): string {
  return `/calendar?start=${r.start}${r.days === DEFAULT_DAYS ? '' : `&days=${r.days}`}`;
}

/** A calendar day for people: "Monday 30 November", with the year when it is not this one. */
export function dayName(day: string, opts: Intl.DateTimeFormatOptions = { weekday: 'long', day: 'numeric', month: 'long' }): string {
  const d = new Date(utc(day));
  const year = d.getUTCFullYear() === new Date().getFullYear() ? {} : { year: 'numeric' as const };
  return d.toLocaleDateString(undefined, { ...opts, ...year, timeZone: 'UTC' });
}
