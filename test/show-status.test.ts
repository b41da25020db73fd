// Automatic show-status transitions as logged watches drive them: the rule table itself,
// then each transition over HTTP with the change records it leaves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import type { ShowStatus } from '../src/core/library/library-items.ts';
import { nextStatus } from '../src/core/library/show-status.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

describe('nextStatus', () => {
  const paused = new Date('2026-01-01T00:00:00Z');
  const before = new Date('2025-12-31T00:00:00Z');
  const after = new Date('2026-01-02T00:00:00Z');
  const partial = { aired: 10, watched: 3 };
  const all = { aired: 10, watched: 10 };
  const cases: [ShowStatus | null, { aired: number; watched: number }, Date, ShowStatus | null][] = [
    [null, partial, after, 'watching'],
    [null, all, after, 'completed'],
    ['planned', partial, after, 'watching'],
    ['planned', all, after, 'completed'],
    ['watching', partial, after, 'watching'],
    ['watching', all, after, 'completed'],
    ['completed', partial, after, 'completed'],
    ['dropped', all, after, 'dropped'],
    ['paused', partial, before, 'paused'],
    ['paused', partial, after, 'watching'],
    ['paused', all, after, 'completed'],
    [null, { aired: 0, watched: 0 }, after, 'watching'],
  ];
  it.each(cases)('show: %s with %o after a watch at %s -> %s', (status, progress, at, expected) => {
    expect(nextStatus('show', { status, since: status ? paused : null }, progress, at)).toBe(expected);
  });
  it('movie: planned -> completed; no status stays none; others stay', () => {
    expect(nextStatus('movie', { status: 'planned', since: paused }, { aired: 0, watched: 0 }, after)).toBe('completed');
    expect(nextStatus('movie', { status: null, since: null }, { aired: 0, watched: 0 }, after)).toBeNull();
    expect(nextStatus('movie', { status: 'completed', since: paused }, { aired: 0, watched: 0 }, after)).toBe('completed');
  });
});

describe('transitions over HTTP', () => {
  let app: TestApp;
  let show: number;
  const em = () => app.db.orm.em.fork();
  const SCOPES = ['history:read', 'history:write', 'ratings:read', 'ratings:write'];

  beforeAll(async () => {
    app = await startTestApp();
    await seedCatalog(app, { shows: 6 });
    // A show with at least two aired regular episodes.
    const [row] = await query<{ movie_db_id: number }>(em(), {
      text: `select t.movie_db_id from title t join episode e on e.title_id = t.id
        where t.type = 'show' and e.season_number > 0 and e.air_date <= current_date - 2
        group by t.movie_db_id having count(*) >= 2 order by t.movie_db_id limit 1`,
      params: [],
    });
    show = row!.movie_db_id;
  });
  afterAll(() => app?.stop());

  const statusOf = async (m: Member, type = 'show', id = show) => {
    const res = await platform(app, m.token, 'GET', '/me/show-statuses');
    const item = (res.body.items as { movieDbId: number; scope: string; showStatus: string }[]).find((i) => i.movieDbId === id && (i.scope === 'title') === (type === 'movie'));
    return item?.showStatus ?? null;
  };
  const logEpisode = (m: Member, watchedAt = new Date().toISOString()) => platform(app, m.token, 'POST', '/watch-history', { type: 'show', movieDbId: show, season: 1, episode: 1, watchedAt });
  const logShow = (m: Member) => platform(app, m.token, 'POST', '/watch-history', { type: 'show', movieDbId: show });
  const statusChanges = async (m: Member) =>
    (await query<{ op: string; status: string | null }>(em(), {
      text: `select op, data->>'showStatus' as status from change_log where user_id = $1 and resource = 'show_status' order by xid, id`,
      params: [m.userId],
    })).map((c) => [c.op, c.status]);

  it('first episode watched -> watching; every aired episode watched -> completed; each recorded', async () => {
    const m = await member(app, 'first', SCOPES);
    await logEpisode(m);
    expect(await statusOf(m)).toBe('watching');
    await logShow(m);
    expect(await statusOf(m)).toBe('completed');
    expect(await statusChanges(m)).toEqual([['upsert', 'watching'], ['upsert', 'completed']]);
  });

  it('planned -> watching on a watch; completed stays completed on a rewatch', async () => {
    const m = await member(app, 'planner', SCOPES);
    await platform(app, m.token, 'PUT', `/show-status/show/${show}`, { status: 'planned' });
    await logEpisode(m, '2026-01-01T10:00:00Z');
    expect(await statusOf(m)).toBe('watching');
    await platform(app, m.token, 'PUT', `/show-status/show/${show}`, { status: 'completed' });
    await logEpisode(m, '2026-01-05T10:00:00Z');
    expect(await statusOf(m)).toBe('completed');
  });

  it('dropped is never changed by watches', async () => {
    const m = await member(app, 'dropper', SCOPES);
    await platform(app, m.token, 'PUT', `/show-status/show/${show}`, { status: 'dropped' });
    await logShow(m);
    expect(await statusOf(m)).toBe('dropped');
  });

  it('paused resumes only on a watch dated after the pause (a backfill of older watches leaves it)', async () => {
    const m = await member(app, 'pauser', SCOPES);
    await platform(app, m.token, 'PUT', `/show-status/show/${show}`, { status: 'paused' });
    await logEpisode(m, '2024-06-01T10:00:00Z');
    expect(await statusOf(m)).toBe('paused');
    await logEpisode(m);
    expect(await statusOf(m)).toBe('watching');
  });

  it('a skipped (duplicate) watch changes nothing', async () => {
    const m = await member(app, 'dupe', SCOPES);
    await logEpisode(m, '2026-02-01T10:00:00Z');
    await platform(app, m.token, 'PUT', `/show-status/show/${show}`, { status: 'paused' });
    await logEpisode(m, '2026-02-01T10:10:00Z');
    expect(await statusOf(m)).toBe('paused');
  });

  it('movies: planned -> completed on a watch; without a status a watch sets none', async () => {
    const m = await member(app, 'movies', SCOPES);
    await platform(app, m.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-01-01T10:00:00Z' });
    expect(await statusOf(m, 'movie', SPIRITED_AWAY)).toBeNull();
    await platform(app, m.token, 'PUT', `/show-status/movie/${SPIRITED_AWAY}`, { status: 'planned' });
    await platform(app, m.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-02-01T10:00:00Z' });
    expect(await statusOf(m, 'movie', SPIRITED_AWAY)).toBe('completed');
    expect(await statusChanges(m)).toEqual([['upsert', 'planned'], ['upsert', 'completed']]);
  });

  it('a status change re-records the title\'s ratings with it, so the feed stays current', async () => {
    const m = await member(app, 'rater', SCOPES);
    const rated = await platform(app, m.token, 'POST', '/ratings', { type: 'show', movieDbId: show, season: 1, episode: 1, rating: 8 });
    await logEpisode(m);
    const [last] = await query<{ data: Record<string, unknown> }>(em(), {
      text: `select data from change_log where user_id = $1 and resource = 'ratings' and resource_id = $2 order by xid desc, id desc limit 1`,
      params: [m.userId, String(rated.body.id)],
    });
    expect(last!.data).toMatchObject({ id: rated.body.id, showStatus: 'watching' });
    const page = await platform(app, m.token, 'GET', '/me/ratings');
    expect((page.body.items as unknown[])[0]).toEqual(last!.data);
  });
});
