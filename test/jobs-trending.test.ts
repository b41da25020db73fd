// The trending roll-up (job `trending`): GET /catalog/trending lists what the community watched most in
// the last 7 days (distinct watchers, then watches), as of the job's last run, then fills up by catalog
// popularity; filters apply to both parts. Without a run (or any watch) it is the popularity order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTitles } from '../src/core/catalog/resolve.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches } from '../src/core/library/history-write.ts';
import { trendingJob } from '../src/jobs/trending.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeUser } from './helpers/oauth.ts';
import { FIRST_SHOW, seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';

let app: TestApp;
const TOY_STORY = 862;
const DAY = 86_400_000;

beforeAll(async () => {
  app = await startTestApp({ CATALOG_CACHE_SECONDS: '0' });
  await seedCatalog(app, { shows: 2 });
});
afterAll(() => app?.stop());

type Item = { type: string; movieDbId: number };
async function trending(qs = '') {
  const res = await fetch(`${app.url}/api/public/v1/catalog/trending?limit=5${qs}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Item[] }).items.map((i) => `${i.type}:${i.movieDbId}`);
}

async function watch(userId: string, type: 'movie' | 'show', movieDbId: number, at: Date) {
  const em = app.db.orm.em.fork();
  const [title] = await resolveTitles(em, [{ type, movieDbId }]);
  await transaction(em, (tx) =>
    logWatches(tx, userId, [{ titleId: title!.id, episodeId: null, season: null, episode: null, watchedAt: at, runtimeMinutes: null, source: 'api', clientId: null }]),
  );
}

const byPopularity = async (type?: string) =>
  (
    await query<{ k: string }>(app.db.orm.em.fork(), {
      text: `select type || ':' || movie_db_id as k from title ${type ? 'where type = $1' : ''} order by popularity desc, id limit 5`,
      params: type ? [type] : [],
    })
  ).map((r) => r.k);

describe('trending roll-up', () => {
  it('orders by the last run of the job: watchers, then watches, then popularity', async () => {
    const popular = await byPopularity();
    expect(await trending()).toEqual(popular);
    const now = new Date();
    const [a, b, c] = [await makeUser(app, 'tra'), await makeUser(app, 'trb'), await makeUser(app, 'trc')];
    // Toy Story: two watchers. Spirited Away: one watcher, three watches. The show: one watcher, one watch.
    await watch(a.id, 'movie', TOY_STORY, new Date(now.getTime() - DAY));
    await watch(b.id, 'movie', TOY_STORY, new Date(now.getTime() - 2 * DAY));
    for (const d of [1, 2, 3]) await watch(c.id, 'movie', SPIRITED_AWAY, new Date(now.getTime() - d * DAY));
    await watch(a.id, 'show', FIRST_SHOW, new Date(now.getTime() - 3 * DAY));
    // Older than the window: does not count.
    for (const u of [a, b, c]) await watch(u.id, 'show', FIRST_SHOW + 1, new Date(now.getTime() - 8 * DAY));
    // Not yet: the reads use the last roll-up.
    expect(await trending()).toEqual(popular);

    expect(await trendingJob.run(app.db.orm.em.fork(), now)).toEqual({ titles: 3 });
    const watched = [`movie:${TOY_STORY}`, `movie:${SPIRITED_AWAY}`, `show:${FIRST_SHOW}`];
    expect(await trending()).toEqual([...watched, ...popular.filter((k) => !watched.includes(k))].slice(0, 5));
    // Filters apply to both parts.
    expect(await trending('&type=show')).toEqual([`show:${FIRST_SHOW}`, ...(await byPopularity('show')).filter((k) => k !== `show:${FIRST_SHOW}`)].slice(0, 5));
    const limited = await fetch(`${app.url}/api/public/v1/catalog/trending?limit=1`);
    expect(((await limited.json()) as { items: Item[] }).items.map((i) => i.movieDbId)).toEqual([TOY_STORY]);

    // A later run replaces the roll-up: eight days on, only what was watched in the last week counts.
    expect(await trendingJob.run(app.db.orm.em.fork(), new Date(now.getTime() + 8 * DAY))).toEqual({ titles: 0 });
    expect(await trending()).toEqual(popular);
  });
});
