// The calendar: episodes airing in a window of days of the shows the user follows (repository.ts says
// what following is), sorted by air date. Whether the user watched each is shown only with history:read.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { toShowRef } from './present.ts';
import { calendarEntries } from './repository.ts';
import type { Calendar, CalendarInput } from './schemas.ts';
import { utcDay, userStateFor } from './user-state.ts';

const DAY_MS = 86_400_000;

export async function calendar(em: EntityManager, actor: Actor, input: CalendarInput, imageBaseUrl: string): Promise<Calendar> {
  const startDate = input.startDate ?? utcDay();
  const until = utcDay(new Date(Date.parse(`${startDate}T00:00:00Z`) + input.days * DAY_MS));
  const withWatched = userStateFor(actor).historyOf !== null;
  const rows = await calendarEntries(em, { userId: actor.userId, from: startDate, until, withWatched });
  return {
    startDate,
    days: input.days,
    items: rows.map((r) => ({
      show: toShowRef(r, imageBaseUrl),
      season: r.season_number,
      episode: r.episode_number,
      episodeTitle: r.episode_name,
      // Never null: the calendar reads episodes by their air date.
      airDate: r.air_date!,
      runtimeMinutes: r.runtime_minutes,
      watched: r.watched ?? null,
    })),
  };
}
