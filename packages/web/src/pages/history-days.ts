// The history page's arithmetic on days: the local day an entry falls on, its heading, and the API's
// time window from the "From" and "To" date fields (both days included, in the person's time zone).
import type { PlatformOutputs } from '../api.ts';

export type HistoryEntry = PlatformOutputs['history']['list']['items'][number];

/** YYYY-MM-DD of a time in the local time zone. */
function localDay(at: string | Date): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Local midnight starting a YYYY-MM-DD day, `plus` days later. */
function midnight(day: string, plus = 0): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + plus);
}

export function dayHeading(day: string): string {
  return midnight(day).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
}

export function timeOfDay(at: string): string {
  return new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** The API's window: from the start of `from` to the end of `to` (the API's endAt is exclusive). */
export function timeWindow(from: string, to: string): { startAt?: string; endAt?: string } {
  return {
    ...(from ? { startAt: midnight(from).toISOString() } : {}),
    ...(to ? { endAt: midnight(to, 1).toISOString() } : {}),
  };
}

/** Entries grouped by local day, newest day first, newest entry first inside a day. */
export function byDay(entries: HistoryEntry[]): Array<{ day: string; entries: HistoryEntry[] }> {
  const sorted = [...entries].sort((a, b) => (a.watchedAt < b.watchedAt ? 1 : a.watchedAt > b.watchedAt ? -1 : b.id - a.id));
  const groups: Array<{ day: string; entries: HistoryEntry[] }> = [];
  for (const e of sorted) {
    const day = localDay(e.watchedAt);
    const last = groups.at(-1);
    if (last?.day === day) last.entries.push(e);
    else groups.push({ day, entries: [e] });
  }
  return groups;
}

/** The value of a datetime-local field for a time, in the local time zone (to the minute). */
export function localDateTime(at: string): string {
  const d = new Date(at);
  return `${localDay(d)}T${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}
