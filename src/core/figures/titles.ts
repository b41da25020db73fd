// The per-title figures (user_title_figures) and the totals that follow from them: a change of entries
// recounts only the titles it touched, from the user's entries of those titles, and adds the difference
// to the totals (entries, minutes, different episodes, a title counted once among movies, shows and
// anime while it has an entry, and the entries and minutes of movies apart from those of episodes).
import type { EntityManager } from '@mikro-orm/postgresql';
import { titleFiguresNow } from './titles-repository.ts';
import type { TotalsDelta } from './totals.ts';
import type { FigureWrites } from './write-repository.ts';

/**
 * Recounts the user's figures of these titles (one statement, after the entries are written, under the
 * figures lock) into `writes`: each title's row whole, or its removal when it has no entry left, and the
 * totals' difference.
 */
export async function planTitleFigures(tx: EntityManager, userId: string, titleIds: readonly string[], writes: FigureWrites): Promise<void> {
  if (titleIds.length === 0) return;
  const delta: TotalsDelta = writes.totals;
  const add = (k: keyof TotalsDelta, n: number) => (delta[k] = (delta[k] ?? 0) + n);
  for (const t of await titleFiguresNow(tx, userId, titleIds)) {
    const was = { watches: t.kept_watches ?? 0, minutes: t.kept_minutes ?? 0, episodes: t.kept_episodes ?? 0 };
    const is = { watches: t.watches ?? 0, minutes: t.minutes ?? 0, episodes: t.episodes ?? 0 };
    add('watches', is.watches - was.watches);
    add('minutes', is.minutes - was.minutes);
    add('episodes', is.episodes - was.episodes);
    // A show's entries are its episodes' (the split Trakt's statistics read).
    const split = t.type === 'movie' ? 'movie' : 'episode';
    add(`${split}_watches`, is.watches - was.watches);
    add(`${split}_minutes`, is.minutes - was.minutes);
    const held = Number(is.watches > 0) - Number(was.watches > 0);
    add(t.type === 'movie' ? 'movies' : 'shows', held);
    if (t.is_anime) add('anime_titles', held);
    if (is.watches === 0) {
      if (t.kept_watches !== null) writes.untitled.push(t.title_id);
      continue;
    }
    writes.titles.push({
      title_id: t.title_id,
      ...is,
      regular_episodes: t.regular_episodes ?? 0,
      last_watched_at: t.last_watched_at!,
      completed_from: t.completed_from,
      completed_until: t.completed_until,
      last_season: t.last_season,
      last_episode: t.last_episode,
    });
  }
}
