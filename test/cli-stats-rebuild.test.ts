// `admin stats:rebuild` as an operator runs it, while the server runs: kept figures damaged in the database
// (a total wrong, a day row gone, a row of a day with nothing on it, a streak run cut short, a title's and
// a month genre's figures wrong, list counts wrong or gone) are the rows' figures again after the command. With --user (a username in
// any case, or an id) only that user's; without, every user's, with progress on stderr and the count on
// stdout. An unknown user or a stray argument is a usage mistake (exit 2) and rebuilds nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { figureRows } from '../src/core/figures/rebuild-repository.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runAdmin } from './helpers/cli.ts';
import { keptAgainstRebuilt, type FigureRows } from './helpers/figures.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';
import { sql } from './helpers/title-fixtures.ts';

let app: TestApp;
const em = () => app.db.orm.em.fork();
let users: Member[];
/** Each user's figures as the rows give them, before any damage. */
const good = new Map<string, FigureRows>();

/** A few days in a row and one apart (two streak runs), a movie and episodes, and ratings. */
async function library(m: Member, shift: number): Promise<void> {
  const day = (n: number) => new Date(Date.UTC(2025, 2, 1 + shift + n, 20)).toISOString();
  await ok(bulk(app, m.token, 'history', [
    { movie_db_id: SPIRITED_AWAY, watched_at: day(0) },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: day(1) },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 2, watched_at: day(2) },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 3, watched_at: day(5) },
  ]));
  await ok(bulk(app, m.token, 'ratings', [
    { movie_db_id: SPIRITED_AWAY, rating: 8, rated_at: day(0) },
    { movie_db_id: FIRST_SHOW, type: 'show', season: 1, rating: 7, rated_at: day(3) },
  ]));
  await ok(platform(app, m.token, 'POST', '/favourites', { type: 'movie', movieDbId: SPIRITED_AWAY }));
  await ok(platform(app, m.token, 'PUT', `/show-status/show/${FIRST_SHOW}`, { status: 'paused' }));
}

/** Damages the user's kept figures in every table the rebuild recomputes. */
async function damage(userId: string): Promise<void> {
  await sql(app, 'update user_figures set watches = watches + 5, xp = xp + 1 where user_id = $1', [userId]);
  await sql(app, 'delete from user_day_figures where user_id = $1 and day = (select min(day) from user_day_figures where user_id = $1)', [userId]);
  await sql(app, `insert into user_day_figures (user_id, day, watches, movies, episodes, minutes, ratings) values ($1, '2001-01-01', 1, 1, 0, 90, 0)`, [userId]);
  await sql(app, 'update user_streak_run set days = 1, last_day = first_day where user_id = $1', [userId]);
  await sql(app, 'update user_title_figures set minutes = minutes + 10, completed_from = null where user_id = $1', [userId]);
  await sql(app, 'delete from user_month_genre where user_id = $1 and genre = (select min(genre) from user_month_genre where user_id = $1)', [userId]);
  await sql(app, `update user_library_count set n = n + 2 where user_id = $1 and list = 'ratings'`, [userId]);
  await sql(app, `delete from user_library_count where user_id = $1 and list = 'favourites'`, [userId]);
}

const rowsOf = (m: Member) => figureRows(em(), m.userId);

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  users = [];
  for (const [i, name] of ['Alice_stats', 'bob_stats', 'carol_stats'].entries()) {
    const m = await member(app, name, [...SCOPES], { official: true });
    await library(m, i * 3);
    const { diff, rows } = await keptAgainstRebuilt(em, m.userId);
    expect(diff).toEqual([]);
    good.set(m.userId, rows);
    users.push(m);
  }
});
afterAll(() => app?.stop());

describe('admin stats:rebuild', () => {
  it('--user rebuilds that user only, named by username in any case or by id', async () => {
    const [alice, bob] = users as [Member, Member];
    await damage(alice.userId);
    await damage(bob.userId);
    expect(await rowsOf(alice)).not.toEqual(good.get(alice.userId));

    const r = await runAdmin(app, 'stats:rebuild', '--user', 'alice_STATS');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ users: 1, seconds: expect.any(Number) });
    expect(await rowsOf(alice)).toEqual(good.get(alice.userId));
    expect(await rowsOf(bob)).not.toEqual(good.get(bob.userId));

    const byId = await runAdmin(app, 'stats:rebuild', '--user', bob.userId);
    expect(byId.code, byId.stderr).toBe(0);
    expect(JSON.parse(byId.stdout)).toEqual({ users: 1, seconds: expect.any(Number) });
    expect(await rowsOf(bob)).toEqual(good.get(bob.userId));
  });

  it('without --user rebuilds every user, with progress on stderr', async () => {
    for (const m of users) await damage(m.userId);
    const [{ n }] = (await sql<{ n: number }>(app, 'select count(*)::int as n from app_user')) as [{ n: number }];
    const r = await runAdmin(app, 'stats:rebuild');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ users: n, seconds: expect.any(Number) });
    // A pipe gets JSON lines: users done, out of the users there are.
    const steps = r.stderr.trim().split('\n').map((l) => JSON.parse(l) as { source: string; done: number; total: number });
    expect(steps.at(-1)).toEqual({ source: 'stats', done: n, total: n });
    for (const m of users) expect(await rowsOf(m), m.username).toEqual(good.get(m.userId));
  });

  it('an unknown user or a stray argument is a usage mistake: exit 2, nothing rebuilt', async () => {
    const [, , carol] = users as [Member, Member, Member];
    await damage(carol.userId);
    const damaged = await rowsOf(carol);
    const mistakes = [
      { args: ['--user', 'nobody_here'], says: 'no user named nobody_here' },
      { args: ['--user', '00000000-0000-4000-8000-000000000000'], says: 'no user named 00000000-0000-4000-8000-000000000000' },
      { args: ['carol_stats'], says: 'unexpected argument: carol_stats' },
    ];
    for (const { args, says } of mistakes) {
      const r = await runAdmin(app, 'stats:rebuild', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`${says}\nusage: npm run --silent admin -- stats:rebuild [--user USERNAME|ID]\n`);
    }
    expect(await rowsOf(carol)).toEqual(damaged);
  });
});
