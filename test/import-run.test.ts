// Import runs end to end: a file uploaded on /account/import, run by the `imports` job, written through
// bulk sync and the library and list writes. Counts per outcome, every kind in the change feed, a second
// import of the same file adds nothing (within the keys' 24 hours and after them), the unmatched rows
// kept, a file the reader refuses anywhere fails with nothing written, progress is visible mid-run, and
// a run whose holder died is taken over. The reader is the test's JSON-lines one (helpers/import-lines.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceRun, importClientId, receiveFile } from '../src/core/import/run.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { armPause, jsonLines, jsonLinesImporters, releasePause } from './helpers/import-lines.ts';
import { accountSession, finished, runStatus, uploaded, type Session } from './helpers/imports.ts';
import { FIRST_SHOW, seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';
import { settled } from './helpers/sync-client.ts';
import { sql } from './helpers/title-fixtures.ts';

const TOY_STORY = 862;
const CRIME = 7000;
const MISSING = 99_999_999;

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ IMPORT_INTERVAL_MS: '1000' }, { deps: { importers: jsonLinesImporters } });
  await seedCatalog(app, { shows: 4 });
});
afterAll(async () => {
  await app?.stop();
});

const at = (file: string, row: number, label = `row ${row}`) => ({ file, row, label });
const hours = (n: number) => new Date(Date.UTC(2023, 0, 1) + n * 3600_000).toISOString();

/** A file with every kind: 123 watches (two batches of history), 2 ratings, a watchlist title, statuses, a favourite and a list. */
function everyKind(): unknown[] {
  const watches = Array.from({ length: 120 }, (_, i) => ({ kind: 'history', at: at('history.json', i + 1), item: { movie_db_id: TOY_STORY, watched_at: hours(2 * i) } }));
  return [
    ...watches,
    { kind: 'history', at: at('history.json', 121), item: { movie_db_id: SPIRITED_AWAY, watched_at: hours(1000) } },
    { kind: 'history', at: at('history.json', 122), item: { tv_db_id: null, movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: hours(1001) } },
    { kind: 'history', at: at('history.json', 123), item: { movie_db_id: FIRST_SHOW, season: 1, episode: 2, watched_at: hours(1002) } },
    { kind: 'history', at: at('history.json', 124, '=HYPERLINK("http://evil.example","A Film Nobody Has") (2001)'), item: { movie_db_id: MISSING, watched_at: hours(1003) } },
    { kind: 'history', at: at('history.json', 125, 'From the future'), item: { movie_db_id: SPIRITED_AWAY, watched_at: '2999-01-01T00:00:00Z' } },
    { kind: 'rating', at: at('ratings.json', 1), item: { movie_db_id: SPIRITED_AWAY, rating: 8, rated_at: hours(1004) } },
    { kind: 'rating', at: at('ratings.json', 2), item: { movie_db_id: FIRST_SHOW + 1, type: 'show', rating: 7, rated_at: hours(1005) } },
    { kind: 'watchlist', at: at('watchlist.json', 1), item: { movie_db_id: CRIME } },
    { kind: 'show_status', at: at('shows.json', 1), title: { movie_db_id: FIRST_SHOW + 2, type: 'show' }, status: 'dropped' },
    { kind: 'show_status', at: at('movies.json', 1, 'Toy Story (1995)'), title: { movie_db_id: TOY_STORY, type: 'movie' }, status: 'watching' },
    { kind: 'favourite', at: at('favourites.json', 1), title: { movie_db_id: SPIRITED_AWAY } },
    {
      kind: 'list',
      at: at('lists/best.json', 1),
      name: 'Best of the 90s and 00s',
      description: 'Imported',
      items: [
        { title: { movie_db_id: SPIRITED_AWAY }, note: null, at: at('lists/best.json', 2) },
        { title: { title: 'Toy Story', year: 1995 }, note: null, at: at('lists/best.json', 3) },
        { title: { movie_db_id: MISSING - 1 }, note: null, at: at('lists/best.json', 4, 'Lost Film (1950)') },
      ],
    },
  ];
}

const EXPECTED = { imported: 130, unmatched: 2, invalid: 2 };

describe('an import run of every kind', () => {
  let ana: Session;
  let first: string;
  let changesAfterFirst: number;

  beforeAll(async () => {
    ana = await accountSession(app, 'ana_import');
  });

  it('writes every kind through the job and counts each outcome', async () => {
    first = await uploaded(app, ana, jsonLines(everyKind()), 'trakt-export.jsonl');
    const run = await finished(app, ana, first);
    expect(run).toMatchObject({
      id: Number(first), source: 'trakt', status: 'done', phase: null, fileName: 'trakt-export.jsonl', percent: 100,
      imported: EXPECTED.imported, alreadyThere: 0, matched: EXPECTED.imported, unmatched: EXPECTED.unmatched, invalid: EXPECTED.invalid, records: everyKind().length, error: null,
    });
    // The stored file is gone with the run's end.
    expect(await sql(app, 'select 1 from import_chunk where run_id = $1', [first])).toEqual([]);
  });

  it('records every imported item in the change feed, attributed to the import', async () => {
    await settled(app, ana.userId);
    const changes = await changesOf(app, ana.userId);
    changesAfterFirst = changes.length;
    const of = (resource: string) => changes.filter((c) => c.resource === resource && c.op === 'upsert');
    expect(of('history')).toHaveLength(123);
    expect(new Set(of('ratings').map((c) => c.resource_id)).size).toBe(2);
    expect(of('favourites').map((c) => c.resource_id)).toContain(`movie:${SPIRITED_AWAY}`);
    expect(of('show_status').find((c) => c.resource_id === `show:${FIRST_SHOW + 2}`)?.data).toMatchObject({ showStatus: 'dropped' });
    const lists = of('lists').map((c) => c.data as { id: number; name: string });
    const best = lists.find((l) => l.name === 'Best of the 90s and 00s')!;
    expect(best).toBeDefined();
    const items = of('list_items').map((c) => c.data as { listId: number; movieDbId?: number });
    expect(items.filter((i) => i.listId === best.id)).toHaveLength(2);
    expect(items.filter((i) => i.listId !== best.id)).toHaveLength(1); // the watchlist's title
    const clients = await sql<{ client_id: string; n: string }>(app, 'select client_id, count(*)::text as n from watch_history where user_id = $1 group by client_id', [ana.userId]);
    expect(clients).toEqual([{ client_id: importClientId('trakt'), n: '123' }]);
  });

  it('keeps the unmatched and invalid rows with where they came from', async () => {
    const rows = await sql<{ outcome: string; kind: string; file: string; row: number; label: string; error: string | null }>(
      app,
      'select outcome, kind, file, row, label, error from import_row where run_id = $1 order by id',
      [first],
    );
    // In the order they were written: a list's batch as soon as it is read, the last history batch at the end.
    expect(rows.filter((r) => r.outcome === 'unmatched').map(({ kind, file, row, label }) => ({ kind, file, row, label }))).toEqual([
      { kind: 'list', file: 'lists/best.json', row: 4, label: 'Lost Film (1950)' },
      { kind: 'history', file: 'history.json', row: 124, label: '=HYPERLINK("http://evil.example","A Film Nobody Has") (2001)' },
    ]);
    const invalid = rows.filter((r) => r.outcome === 'invalid');
    expect(invalid.map((r) => [r.kind, r.file, r.row])).toEqual([
      ['history', 'history.json', 125],
      ['show_status', 'movies.json', 1],
    ]);
    expect(invalid[0]!.error).toContain('watched_at');
    expect(invalid[1]!.error).toBe("a movie's status is one of planned, completed");
  });

  it('a second import of the same file changes nothing: 0 imported, all already there, no new change records', async () => {
    const again = await finished(app, ana, await uploaded(app, ana, jsonLines(everyKind()), 'trakt-export.jsonl'));
    expect(again).toMatchObject({ status: 'done', imported: 0, alreadyThere: EXPECTED.imported, unmatched: EXPECTED.unmatched, invalid: EXPECTED.invalid });
    await settled(app, ana.userId);
    expect((await changesOf(app, ana.userId)).length).toBe(changesAfterFirst);
  });

  it('and after the keys expire (24 h), the writes\' own duplicate rules say the same', async () => {
    await sql(app, 'delete from sync_idempotency where user_id = $1', [ana.userId]);
    const third = await finished(app, ana, await uploaded(app, ana, jsonLines(everyKind()), 'trakt-export.jsonl'));
    expect(third).toMatchObject({ status: 'done', imported: 0, alreadyThere: EXPECTED.imported, unmatched: EXPECTED.unmatched, invalid: EXPECTED.invalid });
    await settled(app, ana.userId);
    expect((await changesOf(app, ana.userId)).length).toBe(changesAfterFirst);
  });
});

describe('files the reader refuses', () => {
  it('a file refused at its end fails the run with the reader\'s message and writes nothing', async () => {
    const bo = await accountSession(app, 'bo_import');
    const lines = [...everyKind(), { fail: 'the ZIP archive is truncated: its central directory is missing' }];
    const run = await finished(app, bo, await uploaded(app, bo, jsonLines(lines)));
    expect(run).toMatchObject({ status: 'failed', error: 'the ZIP archive is truncated: its central directory is missing', imported: 0, alreadyThere: 0, unmatched: 0, invalid: 0 });
    expect(await changesOf(app, bo.userId)).toEqual([]);
    expect(await sql(app, 'select 1 from watch_history where user_id = $1', [bo.userId])).toEqual([]);
    expect(await sql(app, 'select 1 from import_chunk c join import_run r on r.id = c.run_id where r.user_id = $1', [bo.userId])).toEqual([]);
  });

  it('a file of another format fails at once with a clear message', async () => {
    const cy = await accountSession(app, 'cy_import');
    const run = await finished(app, cy, await uploaded(app, cy, 'PK\u0003\u0004 this is no JSON at all\n'));
    expect(run).toMatchObject({ status: 'failed', error: 'line 1 is not JSON: not a file of this format', imported: 0 });
  });
});

describe('progress', () => {
  it('is readable while the run goes: percent, matched and unmatched of the batches committed so far', async () => {
    const di = await accountSession(app, 'di_import');
    const watches = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'history', at: at('h.json', from + i), item: { movie_db_id: TOY_STORY, watched_at: hours(2 * (from + i)) } }));
    // 100 watches (a full batch) and one unmatched, then the pause in the writing pass, then 50 more.
    const lines = [...watches(1, 100), { kind: 'history', at: at('h.json', 101), item: { movie_db_id: MISSING, watched_at: hours(500) } }, { pause: 2 }, ...watches(102, 50)];
    // Padding after the pause keeps the reader's bytes short of the end while it waits.
    const file = jsonLines(lines) + ' '.repeat(200_000);
    const waiting = armPause();
    const id = await uploaded(app, di, file);
    await waiting;
    try {
      await expect
        .poll(async () => (await runStatus(app, di, id)).body, { timeout: 30_000, interval: 100 })
        .toMatchObject({ status: 'running', phase: 'writing', matched: 100, imported: 100, unmatched: 0 });
      const mid = (await runStatus(app, di, id)).body;
      expect(mid.percent).toBeGreaterThan(0);
      expect(mid.percent).toBeLessThan(100);
      expect(mid.records).toBe(151);
    } finally {
      releasePause();
    }
    expect(await finished(app, di, id)).toMatchObject({ status: 'done', imported: 150, unmatched: 1, percent: 100 });
  });
});

describe('a run whose holder stopped', () => {
  it('is taken over once its lease lapses, resumed after its last whole batch; the old holder writes nothing more', async () => {
    const ed = await accountSession(app, 'ed_import');
    const em = () => app.db.orm.em.fork();
    const watches = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'history', at: at('h.json', from + i), item: { movie_db_id: TOY_STORY, watched_at: hours(3 * (from + i)) } }));
    // The holder (as the CLI holds its run) hangs in its writing pass after its first batch.
    const lines = [...watches(1, 100), { pause: 2 }, ...watches(101, 150)];
    const waiting = armPause();
    const { runId, claim } = await receiveFile(em(), { userId: ed.userId, source: 'simkl', fileName: 'x.jsonl', stream: (async function* () { yield new TextEncoder().encode(jsonLines(lines)); })(), maxBytes: 1 << 20, hold: true });
    const holder = advanceRun(em(), runId, claim!, { importers: jsonLinesImporters });
    await waiting;
    expect((await runStatus(app, ed, runId)).body).toMatchObject({ status: 'running', imported: 100 });
    // Its lease lapses, as if it had died: the job takes the run over and finishes it.
    await sql(app, `update import_run set lease_until = now() - interval '1 second' where id = $1`, [runId]);
    const run = await finished(app, ed, runId);
    expect(run).toMatchObject({ status: 'done', imported: 250, alreadyThere: 0 });
    // The old holder wakes up: the run is no longer its own, and its next batch rolls back.
    releasePause();
    expect(await holder).toBe('lost');
    expect((await runStatus(app, ed, runId)).body).toMatchObject({ status: 'done', imported: 250, alreadyThere: 0 });
    expect(await sql(app, 'select 1 from watch_history where user_id = $1', [ed.userId])).toHaveLength(250);
  });
});
