// How the stats page writes its figures: watch time in hours and minutes, counts with the person's digit
// grouping, months and weekdays short under a bar and long when read out.
const number = new Intl.NumberFormat();

export const count = (n: number) => number.format(n);

/** "0 min", "45 min", "12 h 5 min", "250 h". */
export function duration(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (h === 0) return `${m} min`;
  return m === 0 ? `${count(h)} h` : `${count(h)} h ${m} min`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

const monthDate = (month: string) => new Date(`${month}-01T00:00:00Z`);

/** "2026-03" as "Mar" and as "March 2026". */
export const shortMonth = (month: string) => monthDate(month).toLocaleDateString(undefined, { month: 'short', timeZone: 'UTC' });
export const longMonth = (month: string) => monthDate(month).toLocaleDateString(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });

// 2024-01-01 was a Monday: ISO weekday n is 2024-01-0n.
const weekdayDate = (weekday: number) => new Date(Date.UTC(2024, 0, weekday));
export const shortWeekday = (weekday: number) => weekdayDate(weekday).toLocaleDateString(undefined, { weekday: 'short', timeZone: 'UTC' });
export const longWeekday = (weekday: number) => weekdayDate(weekday).toLocaleDateString(undefined, { weekday: 'long', timeZone: 'UTC' });
