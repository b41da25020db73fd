// The migration that adds the kept figures (migrations/Migration20261128121507_UserFigures.ts) fills them
// for the users there already are, with SQL of its own (a frozen copy of src/core/figures/'s rules): this
// holds that copy equal to rebuildUserFigures. Users with history and ratings (movies, episodes, a
// special, an anime show, entries with and without their own minutes, days around week, month and year
// boundaries in UTC, runs of days), favourites and statuses, one with ratings only and one with nothing,
// are written through the API; then the database goes back to before the migration (its tables and every
// figure row gone) and forward again, the way an upgrade runs it, and each user's filled figures must be
// what rebuildUserFigures makes of their rows. Going forward again also runs the later migrations that
// add figures and fill them from the rows (Up next's columns, the split of the totals by title type), so
// their fills are held to the same comparison.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsList } from '../migrations/index.ts';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { migrate } from '../src/core/db/orm.ts';
import { figureRows } from '../src/core/figures/rebuild-repository.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addSpecial } from './helpers/export-seed.ts';
import { figuresDiff, keptAgainstRebuilt, rowCount, type FigureRows } from './helpers/figures.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';
import { sql } from './helpers/title-fixtures.ts';

const FIGURES_MIGRATION = 'Migration20261128121507_UserFigures';
const ANIME_SHOW = FIRST_SHOW + 1;
const TOY_STORY = 862;

let app: TestApp;
const em = () => app.db.orm.em.fork();
let users: Member[];
/** Each user's figures as the writes kept them, before the migration ran again. */
const kept = new Map<string, FigureRows>();

/** Entries around the turn of a year, a month end, a Sunday-to-Monday night in UTC, and runs of days. */
async function library(m: Member, i: number): Promise<void> {
  const at = (iso: string, days = 0) => new Date(Date.parse(iso) + (days + i) * 86_400_000).toISOString();
  await ok(bulk(app, m.token, 'history', [
    { movie_db_id: SPIRITED_AWAY, watched_at: at('2024-12-31T23:30:00Z') },
    { movie_db_id: SPIRITED_AWAY, watched_at: at('2025-01-01T00:30:00Z'), runtime_minutes: 60 },
    { movie_db_id: TOY_STORY, watched_at: at('2025-01-02T12:00:00Z') },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: at('2025-03-02T23:59:00Z') },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 2, watched_at: at('2025-03-03T00:01:00Z') },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 3, watched_at: at('2025-03-03T21:00:00Z') },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 4, watched_at: at('2025-03-04T21:00:00Z') },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 5, watched_at: at('2025-03-05T21:00:00Z'), runtime_minutes: 5 },
    { movie_db_id: FIRST_SHOW, season: 0, episode: 1, watched_at: at('2025-03-31T22:00:00Z') },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: at('2025-04-01T02:00:00Z') },
    { movie_db_id: ANIME_SHOW, season: 1, episode: 1, watched_at: at('2025-04-06T20:00:00Z') },
    { movie_db_id: ANIME_SHOW, season: 1, episode: 2, watched_at: at('2025-04-07T20:00:00Z') },
  ]));
  // A whole season (every episode of it: its window has no end).
  await ok(platform(app, m.token, 'POST', '/watch-history', { type: 'show', movieDbId: ANIME_SHOW, season: 2, watchedAt: at('2025-05-10T10:00:00Z') }));
  await ok(bulk(app, m.token, 'ratings', [
    { movie_db_id: SPIRITED_AWAY, rating: 9, rated_at: at('2025-01-01T10:00:00Z') },
    { movie_db_id: FIRST_SHOW, type: 'show', rating: 7, rated_at: at('2025-03-03T08:00:00Z') },
    { movie_db_id: FIRST_SHOW, type: 'show', season: 1, rating: 6, rated_at: at('2025-03-04T08:00:00Z') },
    { movie_db_id: FIRST_SHOW, type: 'show', season: 1, episode: 2, rating: 8, rated_at: at('2025-03-05T08:00:00Z') },
    { movie_db_id: ANIME_SHOW, type: 'show', rating: 10, rated_at: at('2025-04-07T23:59:59Z') },
  ]));
  await ok(platform(app, m.token, 'POST', '/favourites', { type: 'movie', movieDbId: SPIRITED_AWAY }));
  await ok(platform(app, m.token, 'POST', '/favourites', { type: 'show', movieDbId: ANIME_SHOW }));
  await ok(platform(app, m.token, 'PUT', `/show-status/movie/${TOY_STORY}`, { status: 'planned' }));
  await ok(platform(app, m.token, 'PUT', `/show-status/show/${FIRST_SHOW}`, { status: 'dropped' }));
}

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  await addSpecial(app);
  await sql(app, `update title set is_anime = true, category = 'anime' where type = 'show' and movie_db_id = $1`, [ANIME_SHOW]);
  users = [];
  for (let i = 0; i < 4; i++) {
    const m = await member(app, `filled_${i}`, [...SCOPES], { official: true });
    await library(m, i * 3);
    users.push(m);
  }
  const critic = await member(app, 'filled_critic', [...SCOPES], { official: true });
  await ok(bulk(app, critic.token, 'ratings', [{ movie_db_id: TOY_STORY, rating: 5, rated_at: '2023-06-05T12:00:00Z' }]));
  users.push(critic, await member(app, 'filled_none', [...SCOPES], { official: true }));
  for (const m of users) kept.set(m.userId, await figureRows(em(), m.userId));
});
afterAll(() => app?.stop());

describe('the figures migration', () => {
  it('fills every existing user\'s figures as rebuildUserFigures makes them from the rows', async () => {
    // Back to before the migration (its tables, and every figure in them, gone), then forward again.
    const before = migrationsList[migrationsList.findIndex((m) => m.name === FIGURES_MIGRATION) - 1]!.name;
    await app.db.orm.migrator.down({ to: before });
    expect(await sql(app, `select 1 from information_schema.tables where table_name = 'user_figures'`)).toEqual([]);
    expect(await migrate(app.db.orm)).toContain(FIGURES_MIGRATION);

    let compared = 0;
    for (const m of users) {
      const filled = await figureRows(em(), m.userId);
      const { diff, rows } = await keptAgainstRebuilt(em, m.userId);
      expect(diff, `${m.username}: the migration's figures against the rebuilt ones`).toEqual([]);
      compared += rowCount(rows);
      // And what the writes had kept is what the migration fills: the same rows, one way or the other.
      expect(figuresDiff(kept.get(m.userId)!, filled), `${m.username}: the writes' figures against the migration's`).toEqual([]);
    }
    const none = await figureRows(em(), users.at(-1)!.userId);
    expect(rowCount(none)).toBe(0);
    expect(compared).toBeGreaterThan(100);
  });
});
