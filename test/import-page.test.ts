// /account/import over HTTP, as a browser's form posts it: the upload needs the session and its CSRF
// token (403, nothing stored), a source and a file (400 with the form again), stays under the size cap
// (413, nothing stored), counts in the per-user upload bucket (429); another user's run is 404 for its
// page, its JSON and its download; the unmatched rows download as CSV with formula cells defused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitById } from '../src/core/limits/table.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { jsonLines, jsonLinesImporters } from './helpers/import-lines.ts';
import { accountSession, finished, runStatus, upload, uploaded, type Session } from './helpers/imports.ts';
import { seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';
import { sql } from './helpers/title-fixtures.ts';

const MAX_BYTES = 8192;

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ IMPORT_INTERVAL_MS: '1000', IMPORT_MAX_BYTES: String(MAX_BYTES) }, { deps: { importers: jsonLinesImporters } });
  await seedCatalog(app, { shows: 1 });
});
afterAll(async () => {
  await app?.stop();
});

const errorOf = async (res: Response) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(await res.text())?.[1];
const runsOf = (userId: string) => sql<{ id: string }>(app, 'select id from import_run where user_id = $1', [userId]);
const oneWatch = jsonLines([{ kind: 'history', at: { file: 'h.json', row: 1, label: 'Spirited Away (2001)' }, item: { movie_db_id: SPIRITED_AWAY, watched_at: '2020-01-01T00:00:00Z' } }]);

describe('the upload form', () => {
  let fay: Session;
  beforeAll(async () => {
    fay = await accountSession(app, 'fay_page');
  });

  it('is a signed-in page: without a session it shows the sign-in form, coming back here', async () => {
    const res = await fetch(`${app.url}/account/import`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('name="next" value="/account/import"');
    const signedIn = await (await fetch(`${app.url}/account/import`, { headers: { cookie: fay.cookie } })).text();
    expect(signedIn).toContain('enctype="multipart/form-data"');
    expect(signedIn).toContain('Up to 8 KiB.');
    expect(await (await fetch(`${app.url}/account`, { headers: { cookie: fay.cookie } })).text()).toContain('href="/account/import"');
  });

  it('refuses an upload without the CSRF token (403), or without a session, and stores nothing', async () => {
    for (const csrf of [null, 'forged']) {
      const res = await upload(app, fay, { content: oneWatch }, { csrf });
      expect(res.status).toBe(403);
      expect(await errorOf(res)).toBe('The form has expired. Load the page again and retry.');
    }
    const anonymous = await upload(app, { ...fay, cookie: '' }, { content: oneWatch });
    expect(anonymous.status).toBe(403);
    expect(await runsOf(fay.userId)).toEqual([]);
  });

  it('asks for the source and the file', async () => {
    const noSource = await upload(app, fay, { content: oneWatch }, { source: null });
    expect([noSource.status, await errorOf(noSource)]).toEqual([400, 'Choose where the file comes from.']);
    const badSource = await upload(app, fay, { content: oneWatch }, { source: 'netflix' });
    expect([badSource.status, await errorOf(badSource)]).toEqual([400, 'Choose where the file comes from.']);
    const noFile = await upload(app, fay, null);
    expect([noFile.status, await errorOf(noFile)]).toEqual([400, 'Choose a file to import.']);
    expect(await runsOf(fay.userId)).toEqual([]);
  });

  it('refuses a file over the cap with 413 and a clear error, keeping nothing of it', async () => {
    const big = `${oneWatch}${' '.repeat(MAX_BYTES)}`;
    const res = await upload(app, fay, { content: big });
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toBe('The file is over the 8 KiB limit.');
    // Exactly the cap is accepted.
    const exact = `${oneWatch}${' '.repeat(MAX_BYTES - Buffer.byteLength(oneWatch))}`;
    const ok = await upload(app, fay, { content: exact });
    expect(ok.status).toBe(303);
    const id = /(\d+)$/.exec(ok.headers.get('location')!)![1]!;
    expect(await finished(app, fay, id)).toMatchObject({ status: 'done', imported: 1, fileSize: MAX_BYTES });
    expect((await runsOf(fay.userId)).map((r) => r.id)).toEqual([id]);
    expect(await sql(app, 'select 1 from import_chunk c join import_run r on r.id = c.run_id where r.user_id = $1', [fay.userId])).toEqual([]);
  });
});

describe('runs are their owner\'s', () => {
  it('another user\'s run is 404 for its page, its JSON and its download', async () => {
    const gus = await accountSession(app, 'gus_page');
    const hal = await accountSession(app, 'hal_page');
    const id = await uploaded(app, gus, oneWatch);
    await finished(app, gus, id);
    expect((await fetch(`${app.url}/account/import/${id}`, { headers: { cookie: gus.cookie } })).status).toBe(200);
    const page = await fetch(`${app.url}/account/import/${id}`, { headers: { cookie: hal.cookie } });
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('There is no such import among yours.');
    const json = await runStatus(app, hal, id);
    expect(json.status).toBe(404);
    expect(json.body).toEqual({ error: 'not_found', message: 'There is no such import among yours', request_id: expect.any(String) });
    expect((await fetch(`${app.url}/account/import/${id}/unmatched.csv`, { headers: { cookie: hal.cookie } })).status).toBe(404);
    for (const bad of ['0', 'abc', '99999999999']) expect((await runStatus(app, gus, bad)).status).toBe(404);
  });
});

describe('the unmatched rows', () => {
  it('download as CSV, RFC 4180 quoted, with formula cells defused', async () => {
    const ivy = await accountSession(app, 'ivy_page');
    const lines = [
      { kind: 'history', at: { file: 'watched.csv', row: 2, label: '=HYPERLINK("http://evil.example","x")' }, item: { movie_db_id: 99_999_991, watched_at: '2020-01-01T00:00:00Z' } },
      { kind: 'rating', at: { file: 'ratings.csv', row: 3, label: '@SUM(A1:A9), "quoted"' }, item: { movie_db_id: 99_999_992, rating: 6 } },
      { kind: 'watchlist', at: { file: 'watchlist.csv', row: 4, label: 'Plain Title (1999)' }, item: { movie_db_id: 99_999_993 } },
      { kind: 'history', at: { file: 'h.json', row: 5, label: 'Spirited Away (2001)' }, item: { movie_db_id: SPIRITED_AWAY, watched_at: '2020-01-01T00:00:00Z' } },
    ];
    const id = await uploaded(app, ivy, jsonLines(lines));
    expect(await finished(app, ivy, id)).toMatchObject({ status: 'done', imported: 1, unmatched: 3 });
    const page = await (await fetch(`${app.url}/account/import/${id}`, { headers: { cookie: ivy.cookie } })).text();
    expect(page).toContain(`href="/account/import/${id}/unmatched.csv"`);
    const res = await fetch(`${app.url}/account/import/${id}/unmatched.csv`, { headers: { cookie: ivy.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="import-${id}-unmatched.csv"`);
    expect(await res.text()).toBe(
      'kind,file,row,title\r\n' +
        'history,watched.csv,2,"\'=HYPERLINK(""http://evil.example"",""x"")"\r\n' +
        'rating,ratings.csv,3,"\'@SUM(A1:A9), ""quoted"""\r\n' +
        'watchlist,watchlist.csv,4,Plain Title (1999)\r\n',
    );
  });
});

describe('the upload bucket', () => {
  it(`counts every upload of a user: past ${limitById('import-upload').points} an hour, 429 with Retry-After and nothing stored`, async () => {
    const jo = await accountSession(app, 'jo_page');
    const points = limitById('import-upload').points;
    for (let i = 0; i < points; i++) expect((await upload(app, jo, { content: `${oneWatch}${' '.repeat(i)}` })).status).toBe(303);
    const refused = await upload(app, jo, { content: oneWatch });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await errorOf(refused)).toMatch(/^Too many imports in the last hour\. Try again in \d+ minutes?\.$/);
    expect(await runsOf(jo.userId)).toHaveLength(points);
    // Another user is not held back.
    const kim = await accountSession(app, 'kim_page');
    expect((await upload(app, kim, { content: oneWatch })).status).toBe(303);
  });
});
