// The living catalog's refresh: the catalog-refresh job (run by hand here, not on its timer) and
// `admin catalog:refresh` ask the provider (a local fake) again for the titles people follow, watch or
// list when they are due: a show still airing after a day, an ended show or a movie after 30 days, a
// title never refreshed at once; never a synthetic title or one nobody follows. What a refresh brings
// (a new season) reaches the calendar, up next and the new-episode notifications over HTTP; a provider
// that fails leaves the title as it was. Time is simulated by moving title.refreshed_at back. Before each
// test every title counts as just refreshed and no fetch waits for a retry, so each test's titles are
// the only ones due.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { catalogRefreshJob } from '../src/jobs/catalog-refresh.ts';
import { jobsFor } from '../src/jobs/index.ts';
import { newEpisodesJob } from '../src/jobs/new-episodes.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runAdminWith } from './helpers/cli.ts';
import { migratedDatabase } from './helpers/db.ts';
import { livingCatalogEnv, startFakeMovieDb, type FakeMovieDb, type FakeShow } from './helpers/fake-movie-db.ts';
import { scrapeMetrics, seriesValue } from './helpers/metrics.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { sql } from './helpers/title-fixtures.ts';

const METRICS_TOKEN = 'catalog-refresh-metrics-token';
const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const today = () => day(Date.now());
const tomorrow = () => day(Date.now() + DAY_MS);

let fake: FakeMovieDb;
let app: TestApp;
let alice: Member;

beforeAll(async () => {
  fake = await startFakeMovieDb();
  app = await startTestApp(livingCatalogEnv(fake, { CATALOG_REFRESH_INTERVAL_MS: '0', CATALOG_CACHE_SECONDS: '0', METRICS_TOKEN }));
  await seedCatalog(app, { shows: 2 });
  alice = await member(app, 'alice', ['profile:read', 'ratings:write', 'history:read', 'history:write', 'lists:read', 'lists:write', 'notifications:read']);
});
afterAll(async () => {
  await app?.stop();
  await fake?.close();
});
beforeEach(async () => {
  await sql(app, `update title set refreshed_at = now()`);
  await sql(app, `delete from catalog_fetch`);
});

const api = (method: string, path: string, body?: unknown) => platform(app, alice.token, method, path, body);
/** One run of the job, as its timer would run it (batch: CATALOG_REFRESH_BATCH). */
const refresh = (batch = 200) => catalogRefreshJob(600_000, batch).run(app.db.orm.em.fork(), new Date());
const summary = (s: Partial<Record<string, number>>) => ({ refreshed: 0, missing: 0, invalid: 0, failed: 0, skipped: 0, backlog: 0, ...s });
/** Moves the provider's last answer for the title `days` back (0: now; null: never). */
const refreshedDaysAgo = (type: 'movie' | 'show', id: number, days: number | null) =>
  sql(app, `update title set refreshed_at = case when $3::int is null then null else now() - make_interval(days => $3::int) end where type = $1 and movie_db_id = $2`, [type, id, days]);
const refreshedAt = async (type: 'movie' | 'show', id: number) =>
  (await sql<{ at: Date | null }>(app, `select refreshed_at as at from title where type = $1 and movie_db_id = $2`, [type, id]))[0]!.at;
/** The title reached through the API (a first use fetches it from the provider). */
const titleName = async (type: 'movie' | 'show', id: number) => ((await ok(api('GET', `/title/${type}/${id}`))).title as { name: string }).name;
const seasonsOf = async (id: number) => ((await ok(api('GET', `/title/show/${id}/seasons`))).seasons as Array<{ seasonNumber: number; episodeCount: number }>).map((s) => [s.seasonNumber, s.episodeCount]);
const cli = (args: string[], env: Record<string, string> = {}) => runAdminWith(app, ['catalog:refresh', ...args], { env: livingCatalogEnv(fake, env) });
/** The progress lines a piped CLI writes on stderr (log lines, JSON too, left out). */
const progressLines = (stderr: string) =>
  stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{"source"'))
    .map((l) => JSON.parse(l) as { source: string; done: number; total: number | null });

function airing(id: number, name: string, seasons: FakeShow['seasons'] = [{ number: 1, episodes: [{ number: 1, name: 'Pilot', airDate: '2025-03-01' }] }]): FakeShow {
  return { id, name, firstAirDate: '2025-03-01', status: 'Returning Series', seasons };
}

describe('the catalog-refresh job', () => {
  it('brings a followed show its new season: the new episodes show in the calendar, up next and the new-episode notifications', async () => {
    const season1 = { number: 1, episodes: [1, 2, 3].map((n) => ({ number: n, name: `Tide ${n}`, airDate: `2025-03-0${n}` })) };
    fake.show(airing(71001, 'Harbor Lights', [season1]));
    expect(await titleName('show', 71001)).toBe('Harbor Lights');
    await ok(api('PUT', '/show-status/show/71001', { status: 'watching' }));
    await ok(api('POST', '/watch-history', { type: 'show', movieDbId: 71001, season: 1, watchedAt: '2025-04-01T20:00:00.000Z' }));
    const calendar = async () =>
      ((await ok(api('GET', `/calendar?startDate=${today()}&days=2`))).items as Array<{ show: { movieDbId: number }; season: number; episode: number; airDate: string }>)
        .filter((i) => i.show.movieDbId === 71001)
        .map((i) => [i.season, i.episode, i.airDate]);
    const upNext = async () =>
      ((await ok(api('GET', '/me/up-next'))).items as Array<{ show: { movieDbId: number }; nextEpisode: { season: number; episode: number; airDate: string } }>)
        .filter((i) => i.show.movieDbId === 71001)
        .map((i) => [i.nextEpisode.season, i.nextEpisode.episode, i.nextEpisode.airDate]);
    expect(await calendar()).toEqual([]);
    expect(await upNext()).toEqual([]);

    // The provider has a second season now: one episode airs today, the next tomorrow.
    fake.show(airing(71001, 'Harbor Lights', [season1, { number: 2, episodes: [{ number: 1, name: 'Undertow', airDate: today() }, { number: 2, name: 'Slack Water', airDate: tomorrow() }] }]));
    // Fetched on first use a moment ago: not due yet, whatever the provider has.
    expect(await refresh()).toEqual(summary({}));
    expect(await seasonsOf(71001)).toEqual([[1, 3]]);

    // A day later it is.
    await refreshedDaysAgo('show', 71001, 2);
    const hits = fake.count('/3/tv/71001');
    expect(await refresh()).toEqual(summary({ refreshed: 1 }));
    expect(fake.count('/3/tv/71001')).toBe(hits + 3); // the show and its two seasons
    expect(Date.now() - (await refreshedAt('show', 71001))!.getTime()).toBeLessThan(60_000);

    expect(await seasonsOf(71001)).toEqual([[1, 3], [2, 2]]);
    expect(await calendar()).toEqual([[2, 1, today()], [2, 2, tomorrow()]]);
    expect(await upNext()).toEqual([[2, 1, today()]]);
    expect(await newEpisodesJob.run(app.db.orm.em.fork(), new Date())).toEqual({ recorded: 1 });
    const inbox = (await ok(api('GET', '/me/notifications'))).items as Array<{ kind: string; data: Record<string, unknown> }>;
    expect(inbox.filter((n) => n.kind === 'new_episode').map((n) => n.data)).toEqual([
      { type: 'show', movieDbId: 71001, punchplayId: 'show-71001', showName: 'Harbor Lights', season: 2, episode: 1, episodeName: 'Undertow', airDate: today() },
    ]);
  });

  it('refreshes an airing show again after a day, an ended show and a movie only after 30 days (followed, watched or listed)', async () => {
    // Favourite: an ended show. Listed: a movie. Watched only (its status cleared): an airing show.
    fake.show({ id: 71002, name: 'Old Lighthouse', firstAirDate: '2019-05-01', status: 'Ended', seasons: [{ number: 1, episodes: [{ number: 1, name: 'Keeper', airDate: '2019-05-01' }] }] });
    fake.movie({ id: 72001, title: 'Quiet Harbour', releaseDate: '2021-09-10' });
    fake.show(airing(71003, 'Night Ferry'));
    expect(await titleName('show', 71002)).toBe('Old Lighthouse');
    expect(await titleName('movie', 72001)).toBe('Quiet Harbour');
    expect(await titleName('show', 71003)).toBe('Night Ferry');
    await ok(api('POST', '/favourites', { type: 'show', movieDbId: 71002 }));
    const list = await ok(api('POST', '/lists', { name: 'Harbour films', isPublic: false }));
    await ok(api('POST', `/lists/${list.id as number}/items`, { items: [{ type: 'movie', movieDbId: 72001 }] }));
    await ok(api('POST', '/watch-history', { type: 'show', movieDbId: 71003, season: 1, episode: 1, watchedAt: '2025-03-02T20:00:00.000Z' }));
    await ok(api('DELETE', '/show-status/show/71003'));

    const hits = () => [fake.count('/3/tv/71002'), fake.count('/3/movie/72001'), fake.count('/3/tv/71003')];
    const before = hits();
    for (const [type, id] of [['show', 71002], ['movie', 72001], ['show', 71003]] as const) await refreshedDaysAgo(type, id, 2);
    // Two days on: the airing show only.
    expect(await refresh()).toEqual(summary({ refreshed: 1 }));
    expect(hits()).toEqual([before[0], before[1], before[2]! + 2]);
    // 29 days on: still not the others.
    for (const [type, id] of [['show', 71002], ['movie', 72001]] as const) await refreshedDaysAgo(type, id, 29);
    expect(await refresh()).toEqual(summary({}));
    // 31 days on: both.
    for (const [type, id] of [['show', 71002], ['movie', 72001]] as const) await refreshedDaysAgo(type, id, 31);
    expect(await refresh()).toEqual(summary({ refreshed: 2 }));
    expect(hits()).toEqual([before[0]! + 2, before[1]! + 1, before[2]! + 2]);
    // And once refreshed, not again the same day.
    expect(await refresh()).toEqual(summary({}));
  });

  it('leaves alone titles nobody follows, watches or lists, whenever they were refreshed', async () => {
    fake.show(airing(71004, 'Passing Glance'));
    fake.show(airing(71009, 'Second Thoughts'));
    expect(await titleName('show', 71004)).toBe('Passing Glance');
    expect(await titleName('show', 71009)).toBe('Second Thoughts');
    // Followed, then not: a status set and cleared, a favourite added and removed.
    await ok(api('PUT', '/show-status/show/71009', { status: 'planned' }));
    await ok(api('DELETE', '/show-status/show/71009'));
    await ok(api('POST', '/favourites', { type: 'show', movieDbId: 71009 }));
    await ok(api('DELETE', '/favourites/show/71009'));
    await refreshedDaysAgo('show', 71004, 40);
    await refreshedDaysAgo('show', 71009, null);
    const before = [fake.count('/3/tv/71004'), fake.count('/3/tv/71009')];
    expect(await refresh()).toEqual(summary({}));
    expect([fake.count('/3/tv/71004'), fake.count('/3/tv/71009')]).toEqual(before);
  });

  it('never refreshes a synthetic show; a dataset title never refreshed is due at once, and one the provider lacks counts as missing', async () => {
    await ok(api('PUT', `/show-status/show/${FIRST_SHOW}`, { status: 'watching' }));
    await ok(api('POST', '/favourites', { type: 'movie', movieDbId: SPIRITED_AWAY }));
    await refreshedDaysAgo('show', FIRST_SHOW, null);
    await refreshedDaysAgo('movie', SPIRITED_AWAY, null);
    const name = await titleName('movie', SPIRITED_AWAY);
    expect(await refresh()).toEqual(summary({ missing: 1 }));
    expect(fake.count(`/3/tv/${FIRST_SHOW}`)).toBe(0);
    expect(fake.count(`/3/movie/${SPIRITED_AWAY}`)).toBe(1);
    // Nothing changed for either; the missing one waits a day before it is asked for again.
    expect(await refreshedAt('show', FIRST_SHOW)).toBeNull();
    expect(await refreshedAt('movie', SPIRITED_AWAY)).toBeNull();
    expect(await titleName('movie', SPIRITED_AWAY)).toBe(name);
    expect(await refresh()).toEqual(summary({}));
    expect(fake.count(`/3/movie/${SPIRITED_AWAY}`)).toBe(1);
  });

  it('a provider failing mid-refresh leaves the title as it was (answered 200 meanwhile), counts as failed and waits for its retry; catalog:refresh --ids does not wait', async () => {
    fake.show(airing(71005, 'Storm Season'));
    expect(await titleName('show', 71005)).toBe('Storm Season');
    await ok(api('PUT', '/show-status/show/71005', { status: 'watching' }));
    const metrics = await scrapeMetrics(app.url, METRICS_TOKEN);
    const failedSeries = 'catalog_fetches_total{reason="refresh",outcome="failed"}';

    // The provider renamed it and added a season, whose request fails every time it is tried (and retried).
    fake.show(airing(71005, 'Storm Season: Landfall', [{ number: 1, episodes: [{ number: 1, name: 'Pilot', airDate: '2025-03-01' }] }, { number: 2, episodes: [{ number: 1, name: 'Eye', airDate: today() }] }]));
    fake.trouble('/3/tv/71005/season/2', { status: 500, times: 3 });
    await refreshedDaysAgo('show', 71005, 2);
    const was = await refreshedAt('show', 71005);
    const held = fake.hold('/3/tv/71005');
    const run = refresh();
    await held.arrived;
    // While the refresh waits on the provider, the title answers as it was.
    expect(await titleName('show', 71005)).toBe('Storm Season');
    held.release();
    expect(await run).toEqual(summary({ failed: 1 }));
    expect(await titleName('show', 71005)).toBe('Storm Season');
    expect(await seasonsOf(71005)).toEqual([[1, 1]]);
    expect(await refreshedAt('show', 71005)).toEqual(was);
    expect(seriesValue(await scrapeMetrics(app.url, METRICS_TOKEN), failedSeries)).toBe(seriesValue(metrics, failedSeries) + 1);

    // Its retry time has not come: the next run leaves it (and it is not in the backlog meanwhile).
    const hits = fake.count('/3/tv/71005');
    expect(await refresh()).toEqual(summary({}));
    expect(fake.count('/3/tv/71005')).toBe(hits);

    // The operator asks for it now: fetched at once, the provider answering well again.
    const r = await cli(['--ids', 'show:71005']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ refreshed: 1, missing: 0, invalid: 0, failed: 0, skipped: 0, titles: [{ type: 'show', movieDbId: 71005, outcome: 'stored' }], seconds: expect.any(Number) });
    expect(await titleName('show', 71005)).toBe('Storm Season: Landfall');
    expect(await seasonsOf(71005)).toEqual([[1, 1], [2, 1]]);
  });

  it('leaves a title another instance is fetching to it: not picked, and catalog:refresh --ids answers `elsewhere` without waiting', async () => {
    fake.show(airing(71012, 'Claimed Elsewhere'));
    expect(await titleName('show', 71012)).toBe('Claimed Elsewhere');
    await ok(api('POST', '/favourites', { type: 'show', movieDbId: 71012 }));
    await refreshedDaysAgo('show', 71012, 2);
    await sql(app, `insert into catalog_fetch (type, movie_db_id, state, claimed_until) values ('show', 71012, 'running', now() + interval '5 minutes')`);
    const hits = fake.count('/3/tv/71012');
    expect(await refresh()).toEqual(summary({}));
    const r = await cli(['--ids', 'show:71012']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ refreshed: 0, skipped: 1, titles: [{ type: 'show', movieDbId: 71012, outcome: 'elsewhere' }] });
    expect(fake.count('/3/tv/71012')).toBe(hits);
    // Its claim lapsed (that instance died): due again, and refreshed.
    await sql(app, `update catalog_fetch set claimed_until = now() - interval '1 second' where movie_db_id = 71012`);
    expect(await refresh()).toEqual(summary({ refreshed: 1 }));
  });

  it('shows the backlog and the refresh fetches in /metrics', async () => {
    fake.show(airing(71010, 'Backlog One'));
    fake.show(airing(71011, 'Backlog Two'));
    for (const id of [71010, 71011]) {
      expect(await titleName('show', id)).toMatch(/^Backlog/);
      await ok(api('POST', '/favourites', { type: 'show', movieDbId: id }));
      await refreshedDaysAgo('show', id, 3);
    }
    const stored = 'catalog_fetches_total{reason="refresh",outcome="stored"}';
    const before = seriesValue(await scrapeMetrics(app.url, METRICS_TOKEN), stored);
    // One a run: the least recently refreshed first.
    await refreshedDaysAgo('show', 71011, 4);
    expect(await refresh(1)).toEqual(summary({ refreshed: 1, backlog: 1 }));
    expect(Date.now() - (await refreshedAt('show', 71011))!.getTime()).toBeLessThan(60_000);
    let text = await scrapeMetrics(app.url, METRICS_TOKEN);
    expect(text).toContain('# TYPE catalog_refresh_backlog gauge\n');
    expect(text).toMatch(/^catalog_refresh_backlog 1$/m);
    expect(seriesValue(text, stored)).toBe(before + 1);
    expect(await refresh(1)).toEqual(summary({ refreshed: 1, backlog: 0 }));
    text = await scrapeMetrics(app.url, METRICS_TOKEN);
    expect(text).toMatch(/^catalog_refresh_backlog 0$/m);
    expect(seriesValue(text, stored)).toBe(before + 2);
  });

  it('does nothing without a provider, and runs every CATALOG_REFRESH_INTERVAL_MS (0: off)', async () => {
    const bare = await migratedDatabase();
    try {
      expect(await catalogRefreshJob(600_000, 200).run(bare.db.orm.em.fork(), new Date())).toEqual({});
    } finally {
      await bare.release();
    }
    const job = (env: Record<string, string>) => jobsFor(loadConfig(env)).find((j) => j.name === 'catalog-refresh');
    expect(job({})?.intervalMs).toBe(600_000);
    expect(job({ CATALOG_REFRESH_INTERVAL_MS: '0' })?.intervalMs).toBe(0);
  });
});

describe('admin catalog:refresh', () => {
  it('--ids fetches the titles named, in the catalog yet or not, and names each one\'s outcome', async () => {
    fake.show(airing(71006, 'Fresh Arrival', [{ number: 1, episodes: [{ number: 1, name: 'Hello', airDate: '2025-06-01' }, { number: 2, name: 'Again', airDate: '2025-06-08' }] }]));
    const r = await cli(['--ids', 'show:71006,show:79999']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      refreshed: 1, missing: 1, invalid: 0, failed: 0, skipped: 0,
      titles: [{ type: 'show', movieDbId: 71006, outcome: 'stored' }, { type: 'show', movieDbId: 79999, outcome: 'missing' }],
      seconds: expect.any(Number),
    });
    // A pipe gets JSON lines: the first and the last step at least.
    const steps = progressLines(r.stderr);
    expect(steps[0]).toEqual({ source: 'refresh', done: 0, total: 2 });
    expect(steps.at(-1)).toEqual({ source: 'refresh', done: 2, total: 2 });
    // The service serves it without asking the provider again.
    const hits = fake.count('/3/tv/71006');
    expect(await titleName('show', 71006)).toBe('Fresh Arrival');
    expect(await seasonsOf(71006)).toEqual([[1, 2]]);
    expect(fake.count('/3/tv/71006')).toBe(hits);
  });

  it('without --ids refreshes run after run until nothing is due', async () => {
    fake.show(airing(71007, 'Run One'));
    fake.show(airing(71008, 'Run Two'));
    for (const id of [71007, 71008]) {
      expect(await titleName('show', id)).toMatch(/^Run/);
      await ok(api('PUT', `/show-status/show/${id}`, { status: 'planned' }));
      await refreshedDaysAgo('show', id, 2);
    }
    fake.show(airing(71008, 'Run Two, Renamed'));
    // One title a run: two runs.
    const r = await cli([], { CATALOG_REFRESH_BATCH: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ refreshed: 2, missing: 0, invalid: 0, failed: 0, skipped: 0, backlog: 0, seconds: expect.any(Number) });
    const steps = progressLines(r.stderr);
    expect(steps[0]).toEqual({ source: 'refresh', done: 0, total: 2 });
    expect(steps.at(-1)).toEqual({ source: 'refresh', done: 2, total: 2 });
    expect(await titleName('show', 71008)).toBe('Run Two, Renamed');
    for (const id of [71007, 71008]) expect(Date.now() - (await refreshedAt('show', id))!.getTime()).toBeLessThan(60_000);

    // Nothing due: nothing done.
    const again = await cli([]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ refreshed: 0, missing: 0, invalid: 0, failed: 0, skipped: 0, backlog: 0, seconds: expect.any(Number) });
  });

  it('refuses without MOVIE_DB_API_KEY (exit 1, saying why) and a malformed --ids (exit 2)', async () => {
    const r = await runAdminWith(app, ['catalog:refresh']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('catalog:refresh failed: MOVIE_DB_API_KEY is not set: the refresh asks the movie database, which needs an API key\n');
    const bad = await cli(['--ids', 'show:abc']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('--ids: "show:abc" is not movie:<id> or show:<id>');
  });
});
