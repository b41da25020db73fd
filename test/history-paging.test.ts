// Acceptance (issue 5): paging through 10,000 history entries returns each exactly once, in order,
// while new watches are being logged.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
let user: Member;
const em = () => app.db.orm.em.fork();
const ENTRIES = 10_000;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  user = await member(app, 'pager', ['history:read', 'history:write']);
  // Two entries share each minute (ties ordered by id), spread over a week of 2025, movies and episodes.
  await query(em(), {
    text: `insert into watch_history (user_id, title_id, episode_id, season_number, episode_number, watched_at, source)
      select $1, x.title_id, x.episode_id, x.season_number, x.episode_number,
        timestamptz '2025-03-01T00:00:00Z' + ((g / 2) * interval '1 minute'), 'api'
      from generate_series(0, $2 - 1) g
      cross join lateral (
        select t.id as title_id, e.id as episode_id, e.season_number, e.episode_number
        from title t left join episode e on e.title_id = t.id and e.season_number = 1 and e.episode_number = 1
        where (g % 3 = 0 and t.type = 'movie' and t.movie_db_id = $3) or (g % 3 <> 0 and t.type = 'show' and t.movie_db_id = $4)
      ) x`,
    params: [user.userId, ENTRIES, SPIRITED_AWAY, FIRST_SHOW],
  });
});
afterAll(() => app?.stop());

type Item = { id: number; watchedAt: string };

it('returns every entry exactly once, strictly by (watchedAt desc, id desc), while watches are logged', async () => {
  const originals = await query<{ id: string }>(em(), { text: `select id from watch_history where user_id = $1`, params: [user.userId] });
  expect(originals).toHaveLength(ENTRIES);

  // New watches now (ahead of every page) and backfills dated inside the range being paged. On
  // PostgreSQL a writer runs beside the reader; the embedded database's socket mixes up concurrent
  // connections (reported), so there a watch is logged between each two pages instead.
  let logged = 0;
  const logOne = async () => {
    const i = logged++;
    const watchedAt = i % 2 === 0 ? new Date().toISOString() : new Date(Date.parse('2025-03-01T00:00:00Z') + ((i * 7919) % 5000) * 60_000 + 30_000).toISOString();
    const res = await platform(app, user.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: (i % 3) + 2, watchedAt });
    expect(res.status).toBe(200);
  };
  let paging = true;
  const writer = servicesMode
    ? (async () => {
        while (paging) await logOne();
      })()
    : Promise.resolve();

  const seen: Item[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await platform(app, user.token, 'GET', `/me/history?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    seen.push(...(res.body.items as Item[]));
    cursor = res.body.nextCursor as string | undefined;
    pages++;
    if (!servicesMode) await logOne();
  } while (cursor);
  paging = false;
  await writer;

  expect(logged).toBeGreaterThan(0);
  expect(pages).toBeGreaterThanOrEqual(ENTRIES / 100);
  const ids = seen.map((i) => String(i.id));
  expect(new Set(ids).size).toBe(ids.length);
  const seenIds = new Set(ids);
  expect(originals.filter((o) => !seenIds.has(String(o.id)))).toEqual([]);
  for (let k = 1; k < seen.length; k++) {
    const [a, b] = [seen[k - 1]!, seen[k]!];
    const ordered = a.watchedAt > b.watchedAt || (a.watchedAt === b.watchedAt && a.id > b.id);
    if (!ordered) expect.fail(`out of order at ${k}: ${JSON.stringify(a)} then ${JSON.stringify(b)}`);
  }
});
