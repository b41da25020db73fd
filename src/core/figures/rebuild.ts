// Recomputing a user's kept figures from their rows (`admin stats:rebuild`, the migration that added
// them, and the test that every kept figure equals the rows'): the figures are dropped and filled again
// in one transaction, under the figures lock, so a write meanwhile waits and then applies on top.
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { addScores, islands, noScore, weekOf, weekScore, type DayFigures } from './days.ts';
import { daysBetween, insertRuns } from './days-repository.ts';
import { rebuildLibraryCounts } from './library-counts.ts';
import { lockTitleStates } from './lock.ts';
import { dropFigures, fillDayFigures, fillMonthGenres, fillTitleFigures, fillYearTitles, ratingsHeld, titleTotals } from './rebuild-repository.ts';
import { refreshCompletionWindows, refreshFurthestEpisodes } from './titles-repository.ts';
import { addUserFigures } from './totals.ts';

export function rebuildUserFigures(em: EntityManager, userId: string): Promise<void> {
  return transaction(em, async (tx) => {
    await lockTitleStates(tx, userId);
    await dropFigures(tx, userId);
    const titles = await fillTitleFigures(tx, userId);
    await refreshCompletionWindows(tx, titles, userId);
    await refreshFurthestEpisodes(tx, titles, userId);
    await fillDayFigures(tx, userId);
    await fillMonthGenres(tx, userId);
    await fillYearTitles(tx, userId);
    const days = await daysBetween(tx, userId, '-infinity', 'infinity');
    await insertRuns(tx, userId, islands(days.filter((d) => d.watches > 0).map((d) => d.day)));
    const weeks = new Map<string, DayFigures[]>();
    for (const d of days) weeks.set(weekOf(d.day), [...(weeks.get(weekOf(d.day)) ?? []), d]);
    const score = noScore();
    for (const w of weeks.values()) addScores(score, weekScore(w));
    await addUserFigures(tx, userId, { ...(await titleTotals(tx, userId)), ratings: await ratingsHeld(tx, userId), ...score });
    await rebuildLibraryCounts(tx, userId);
  });
}
