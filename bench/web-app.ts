// The first-party web app in Chromium (Debian's, through playwright-core), against the real service in
// services mode on the bench catalog (over 40,000 titles):
// - first load of a visitor, cache empty: the JavaScript it transfers (compressed, as sent) and the time
//   until the home page's trending row shows, with the navigation's own timings;
// - a signed-in reload: the silent sign-in (authorize with prompt=none, code, token) and the home page's
//   data, until Continue Watching shows;
// - title pages opened inside the app, TITLES distinct titles (movies and shows, drawn across the
//   catalog, each once, so no cache of the service hides the cold path): time until the title's heading
//   and state show, the /trpc requests each makes (the data must be one round trip), and the CPU of the
//   service and its PostgreSQL backends per page, from /proc.
import { chromium, type Browser, type Page } from 'playwright-core';
import { createUser } from '../src/core/accounts/service.ts';
import { openDatabase, migrate } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { benchDatabaseUrl, cpuBetween, cpuMark, percentile, prepareCatalog, startService, tempDataDir } from './lib.ts';
import { atMost, section, type Section } from './report.ts';

const RUNS = 8;
const TITLES = 200;
const PASSWORD = 'bench-password-1';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const VIEWPORT = { width: 1280, height: 800 };

type Timing = { p50: number; p95: number; runs: number };
export type WebBench = {
  firstLoad: { ready: Timing; domContentLoaded: Timing; firstContentfulPaint: Timing; scriptKB: number; scriptRawKB: number; requests: number };
  reload: { ready: Timing };
  titles: { ready: Timing; trpcRequestsPerPage: { min: number; max: number }; cpuMsPerPage: { service: number; backends: number }; count: number };
  seconds: number;
};

const timing = (values: number[]): Timing => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), runs: values.length };
};

function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Navigation and paint timings of the page's document, and what its scripts cost on the wire. */
async function pageTimings(page: Page): Promise<{ domContentLoaded: number; fcp: number; scriptBytes: number; scriptRawBytes: number; requests: number }> {
  return (await page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    const res = performance.getEntriesByType('resource');
    const scripts = res.filter((r) => r.name.endsWith('.js'));
    return {
      domContentLoaded: nav.domContentLoadedEventEnd,
      fcp: fcp ? fcp.startTime : -1,
      scriptBytes: scripts.reduce((s, r) => s + r.encodedBodySize, 0),
      scriptRawBytes: scripts.reduce((s, r) => s + r.decodedBodySize, 0),
      requests: res.length + 1,
    };
  })()`)) as { domContentLoaded: number; fcp: number; scriptBytes: number; scriptRawBytes: number; requests: number };
}

async function firstLoads(browser: Browser, url: string): Promise<WebBench['firstLoad']> {
  const ready: number[] = [];
  const dcl: number[] = [];
  const fcp: number[] = [];
  let last = { scriptBytes: 0, scriptRawBytes: 0, requests: 0 };
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url);
    await page.getByRole('list', { name: 'Trending' }).waitFor();
    ready.push(performance.now() - started);
    const t = await pageTimings(page);
    dcl.push(t.domContentLoaded);
    fcp.push(t.fcp);
    last = t;
    await context.close();
  }
  return { ready: timing(ready), domContentLoaded: timing(dcl), firstContentfulPaint: timing(fcp), scriptKB: last.scriptBytes / 1024, scriptRawKB: last.scriptRawBytes / 1024, requests: last.requests };
}

async function signIn(page: Page, url: string, username: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('banner').getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

async function reloads(page: Page, url: string): Promise<WebBench['reload']> {
  const ready: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await page.goto(url);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('heading', { name: 'Continue Watching' }).waitFor();
    await page.locator('[aria-labelledby="row-continue-watching"] [role=status]').waitFor({ state: 'detached' });
    ready.push(performance.now() - started);
  }
  return { ready: timing(ready) };
}

type Pick = { type: 'movie' | 'show'; id: number; name: string };

async function titlePages(page: Page, picks: Pick[], cpu: () => Promise<Awaited<ReturnType<typeof cpuMark>>>): Promise<WebBench['titles']> {
  let trpc = 0;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/trpc/')) trpc += 1;
  });
  const ready: number[] = [];
  const perPage: number[] = [];
  const from = await cpu();
  for (const t of picks) {
    const before = trpc;
    const started = performance.now();
    // Inside the app, as a click on a title does: the router follows history (no document load).
    await page.evaluate(`history.pushState(null, '', '/title/${t.type}/${t.id}'); dispatchEvent(new PopStateEvent('popstate'))`);
    await page.getByRole('heading', { level: 1, name: t.name, exact: true }).waitFor();
    await page.getByRole('button', { name: 'Mark as watched' }).first().waitFor();
    ready.push(performance.now() - started);
    perPage.push(trpc - before);
  }
  const to = await cpu();
  const used = from && to ? cpuBetween(from, to) : { server: Number.NaN, backends: Number.NaN };
  return {
    ready: timing(ready),
    trpcRequestsPerPage: { min: Math.min(...perPage), max: Math.max(...perPage) },
    cpuMsPerPage: { service: used.server / picks.length, backends: used.backends / picks.length },
    count: picks.length,
  };
}

export async function benchWebApp(): Promise<WebBench> {
  const started = Date.now();
  const databaseUrl = benchDatabaseUrl();
  await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  await migrate(db.orm);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const url = `http://127.0.0.1:${port}`;
  // Images from an address nothing answers: every poster is its placeholder, and no other host is asked.
  const service = await startService({ DATABASE_URL: databaseUrl, PORT: String(port), BASE_URL: url, TROPHY_INTERVAL_MS: '0', IMPORT_INTERVAL_MS: '0', IMAGE_BASE_URL: 'http://127.0.0.1:9/images' });
  const username = `bench_web_${Date.now().toString(36)}`;
  const browser = await launch();
  try {
    await createUser(db.orm.em.fork(), { username, password: PASSWORD });
    const em = db.orm.em.fork();
    // Titles spread over the catalog's popularity (every k-th), half movies and half shows.
    const pickOf = async (type: 'movie' | 'show', n: number) =>
      query<Pick>(em, {
        text: `select type, movie_db_id as id, name from (select type, movie_db_id, name, row_number() over (order by popularity desc, id) as r, count(*) over () as c from title where type = $1) t
          where r % greatest(1, c / $2) = 0 order by r limit $2`,
        params: [type, n],
      });
    const picks = [...(await pickOf('movie', TITLES / 2)), ...(await pickOf('show', TITLES / 2))].sort((a, b) => (a.id * 7919) % 1000 - (b.id * 7919) % 1000);

    const firstLoad = await firstLoads(browser, url);
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    await signIn(page, url, username);
    const reload = await reloads(page, url);
    const pid = service.child.pid!;
    const titles = await titlePages(page, picks, () => cpuMark(db, pid));
    await context.close();
    return { firstLoad, reload, titles, seconds: (Date.now() - started) / 1000 };
  } finally {
    await browser.close();
    await service.stop();
    await query(db.orm.em.fork(), { text: `delete from app_user where username = $1`, params: [username] });
    await db.close();
  }
}

const ms = (t: Timing) => `p50 ${t.p50.toFixed(0)} ms, p95 ${t.p95.toFixed(0)} ms (${t.runs} runs)`;

export function printWebApp(b: WebBench): void {
  console.log(`web app: first load ${ms(b.firstLoad.ready)}; scripts ${b.firstLoad.scriptKB.toFixed(1)} KB sent (${b.firstLoad.scriptRawKB.toFixed(1)} KB unpacked)`);
  console.log(`web app: signed-in reload ${ms(b.reload.ready)}`);
  console.log(`web app: title page ${ms(b.titles.ready)}, /trpc requests ${b.titles.trpcRequestsPerPage.min}-${b.titles.trpcRequestsPerPage.max}, CPU ${b.titles.cpuMsPerPage.service.toFixed(2)} ms service + ${b.titles.cpuMsPerPage.backends.toFixed(2)} ms PostgreSQL per page`);
}

export function webAppSection(b: WebBench): Section {
  const f = b.firstLoad;
  return section(
    'Web app (Chromium, services mode)',
    `Debian's Chromium at 1280x800 against the service on the bench catalog; images from an address nothing answers (placeholders). First loads in a new browser each (cache empty), ${RUNS} runs; signed-in reloads (silent sign-in included), ${RUNS} runs; ${b.titles.count} distinct title pages opened inside the app, each once.`,
    {
      values: [
        { label: 'First load: until the trending row shows', value: ms(f.ready) },
        { label: 'First load: DOMContentLoaded / first contentful paint (p50)', value: `${f.domContentLoaded.p50.toFixed(0)} ms / ${f.firstContentfulPaint.p50.toFixed(0)} ms` },
        { label: 'First load: scripts sent (Brotli) / unpacked; requests', value: `${f.scriptKB.toFixed(1)} KB / ${f.scriptRawKB.toFixed(1)} KB; ${f.requests}` },
        { label: 'Signed-in reload (silent sign-in, home data) until Continue Watching shows', value: ms(b.reload.ready) },
        { label: 'Title page inside the app, until its heading and controls show', value: ms(b.titles.ready) },
        { label: 'Title page: /trpc requests per page (min-max)', value: `${b.titles.trpcRequestsPerPage.min}-${b.titles.trpcRequestsPerPage.max}` },
        { label: 'Title page: CPU per page, service / PostgreSQL backends', value: `${b.titles.cpuMsPerPage.service.toFixed(2)} ms / ${b.titles.cpuMsPerPage.backends.toFixed(2)} ms` },
      ],
      targets: [
        atMost(36, 'first load JavaScript at most 200 KB gzip (sent as Brotli here)', f.scriptKB, 200, 'KB'),
        atMost(36, "a title page's data in one round trip", b.titles.trpcRequestsPerPage.max, 1, 'requests'),
      ],
    },
  );
}
