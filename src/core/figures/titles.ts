// The per-title figures (user_title_figures) and the totals that follow from them: a change of entries
// recounts only the titles it touched, from the user's entries of those titles, and adds the difference
// to the totals (entries, minutes, different episodes, a title counted once among movies, shows and
// anime while it has an entry, and the entries and minutes of movies apart from those of episodes).
import type { EntityManager } from '@mikro-orm/postgresql';
import { addUserFigures, type TotalsDelta } from './totals.ts';
import { countedTitleFigures, deleteTitleFigures, keptTitleFigures, refreshCompletionWindows, refreshFurthestEpisodes, titleKinds, upsertTitleFigures, type CountedTitleFigures } from './titles-repository.ts';

type Counted = { watches: number; minutes: number; episodes: number };
const NONE: Counted = { watches: 0, minutes: 0, episodes: 0 };

/** Recounts the user's figures of these titles and moves the totals by the difference (under the figures lock). */
export async function refreshTitleFigures(tx: EntityManager, userId: string, titleIds: readonly string[]): Promise<void> {
  if (titleIds.length === 0) return;
  const kept = new Map<string, Counted>((await keptTitleFigures(tx, userId, titleIds)).map((r) => [r.title_id, r]));
  const counted = new Map<string, CountedTitleFigures>((await countedTitleFigures(tx, userId, titleIds)).map((r) => [r.title_id, r]));
  const delta: TotalsDelta = {};
  const add = (k: keyof TotalsDelta, n: number) => (delta[k] = (delta[k] ?? 0) + n);
  for (const t of await titleKinds(tx, titleIds)) {
    const was = kept.get(t.id) ?? NONE;
    const is = counted.get(t.id) ?? NONE;
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
  }
  await upsertTitleFigures(tx, userId, [...counted.values()]);
  await deleteTitleFigures(tx, userId, titleIds.filter((id) => !counted.has(id)));
  await refreshCompletionWindows(tx, [...counted.keys()], userId);
  await refreshFurthestEpisodes(tx, [...counted.keys()], userId);
  await addUserFigures(tx, userId, delta);
}
