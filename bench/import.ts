// An import of 50,000 Trakt history rows (services mode): a watched-history.json written the way Trakt
// exports it (movies and episodes over thousands of distinct titles of the demo catalog), imported
// through the admin CLI's `import` (the same run /account/import starts, written to the end in the
// CLI's process, run as `npm run admin` runs it), then imported again (everything already there).
// Items/s of each, and the peak RSS of the CLI's process, which must stay flat however large the file:
// the file is streamed into the database and read back a chunk at a time. A file a tenth the size is
// imported too, into another account: the ratio of the two peaks is that flatness, measured.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { IMPORTERS } from '../src/core/import/importers.ts';
import { openDatabase, migrate } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { benchDatabaseUrl, post, prepareCatalog, root, sampleRss, scriptOptions, startService, takeServicePeaks, tempDataDir, tokenIssuer } from './lib.ts';
import { section, type Section } from './report.ts';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 50_000);
const SMALL_ROWS = Math.round(ROWS / 10);
const MOVIES = 3_000;
const SHOWS = 300;
const EPISODE_SHARE = 0.7;

type Movie = { movie_db_id: number; name: string; year: number };
type Episode = { movie_db_id: number; name: string; year: number; season_number: number; episode_number: number };

/** Popular movies and episodes of popular shows of the catalog, as the history's titles. */
async function catalogTitles(databaseUrl: string): Promise<{ movies: Movie[]; episodes: Episode[] }> {
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  try {
    const em = db.orm.em.fork();
    const movies = await query<Movie>(em, {
      text: `select movie_db_id, name, year from title where type = 'movie' order by popularity desc, id limit $1`,
      params: [MOVIES],
    });
    const episodes = await query<Episode>(em, {
      text: `select t.movie_db_id, t.name, t.year, e.season_number, e.episode_number
        from (select id, movie_db_id, name, year from title where type = 'show' order by popularity desc, id limit $1) t
        join episode e on e.title_id = t.id where e.season_number > 0 order by t.id, e.season_number, e.episode_number`,
      params: [SHOWS],
    });
    return { movies, episodes };
  } finally {
    await db.close();
  }
}

/** Trakt's watched-history.json: one array element per play, written as a stream. */
async function writeHistory(file: string, titles: { movies: Movie[]; episodes: Episode[] }, rows: number): Promise<number> {
  const out = fs.createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  const start = Date.UTC(2012, 0, 1);
  await write('[\n');
  for (let i = 0; i < rows; i++) {
    // Two hours apart: no two plays of one title fall within the duplicate window.
    const watchedAt = new Date(start + i * 2 * 3600_000).toISOString().replace(/\.\d+Z$/, '.000Z');
    const play = { id: 9_000_000_000 + i, watched_at: watchedAt, action: 'watch' };
    let row;
    if (i % 10 < EPISODE_SHARE * 10) {
      const e = titles.episodes[(i * 7919) % titles.episodes.length]!;
      row = {
        ...play,
        type: 'episode',
        episode: { season: e.season_number, number: e.episode_number, title: `Episode ${e.episode_number}`, ids: { trakt: 1_000_000 + i, tvdb: null, imdb: null, tmdb: null } },
        show: { title: e.name, year: e.year, ids: { trakt: e.movie_db_id, slug: slug(e.name), tvdb: null, imdb: null, tmdb: e.movie_db_id } },
      };
    } else {
      const m = titles.movies[(i * 104_729) % titles.movies.length]!;
      row = { ...play, type: 'movie', movie: { title: m.name, year: m.year, ids: { trakt: m.movie_db_id, slug: slug(m.name), imdb: null, tmdb: m.movie_db_id } } };
    }
    await write(`  ${JSON.stringify(row)}${i < rows - 1 ? ',' : ''}\n`);
  }
  await write(']\n');
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return fs.statSync(file).size;
}

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

type Summary = { run: string; status: string; imported: number; alreadyThere: number; unmatched: number; invalid: number; error: string | null };
type Pass = { seconds: number; summary: Summary; peakRssMiB: number | null };

/** `admin import` in a process of its own; its wall time, its summary and its peak RSS. */
function runImport(databaseUrl: string, username: string, file: string): Promise<Pass> {
  takeServicePeaks();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...scriptOptions('admin'), path.join(root, 'src/cli.ts'), 'import', '--user', username, '--source', 'trakt', '--file', file], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stopSampling = sampleRss(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  // Progress lines (JSON on a pipe) are dropped; an error's last lines are kept.
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    // The samples read the kernel's peak (VmHWM) every 250 ms while the process exists.
    child.on('exit', () => stopSampling());
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) return reject(new Error(`admin import exited ${code}: ${stderr}`));
      resolve({ seconds, summary: JSON.parse(stdout) as Summary, peakRssMiB: takeServicePeaks().rssMiB });
    });
  });
}

/** The write path alone: the same items as one app's POST /sync/history batches. */
type Baseline = { seconds: number; inserted: number };

export type ImportBench = {
  rows: number;
  fileMiB: number;
  first: Pass;
  second: Pass;
  small: { rows: number; fileMiB: number; pass: Pass };
  baseline: Baseline;
};

async function benchUser(databaseUrl: string): Promise<{ id: string; username: string }> {
  const username = `import_${Math.random().toString(36).slice(2, 8)}`;
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  try {
    await migrate(db.orm);
    const user = await createUser(db.orm.em.fork(), { username, password: 'bench-password-1' });
    return { id: user.id, username };
  } finally {
    await db.close();
  }
}

/**
 * The baseline, in the same run: the file's history items (as the Trakt reader makes them) sent by one
 * app, back to back, as POST /sync/history batches of 100 with a new Idempotency-Key each, to the
 * service (`npm start`'s process), into an account of their own. The import writes the same batches
 * through the same bulk-sync code; on top of that it stores the file, reads it twice and records each
 * batch's counts.
 */
async function apiBaseline(databaseUrl: string, file: string, userId: string): Promise<Baseline> {
  const batches: unknown[][] = [[]];
  for await (const record of IMPORTERS.trakt(fs.createReadStream(file))) {
    if (record.kind !== 'history') continue;
    if (batches.at(-1)!.length === 100) batches.push([]);
    batches.at(-1)!.push(record.item);
  }
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  let token: string;
  try {
    const app = await createApp(db.orm.em.fork(), { name: 'Import bench', redirectUris: ['http://127.0.0.1:1/cb'], scopes: ['history:write'], confidential: false, official: false });
    token = await (await tokenIssuer(db, databaseUrl))(userId, app.client_id, 'history:write');
  } finally {
    await db.close();
  }
  const service = await startService({ DATABASE_URL: databaseUrl });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const started = process.hrtime.bigint();
    let inserted = 0;
    for (const items of batches) {
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() };
      const res = await post(`${service.url}/api/platform/v1/sync/history`, headers, JSON.stringify({ items }), agent);
      if (res.status !== 200) throw new Error(`POST /sync/history answered ${res.status}: ${res.body.slice(0, 300)}`);
      inserted += (JSON.parse(res.body) as { inserted: number }).inserted;
    }
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, inserted };
  } finally {
    agent.destroy();
    await service.stop();
    takeServicePeaks();
  }
}

export async function benchImport(): Promise<ImportBench> {
  const databaseUrl = benchDatabaseUrl();
  const dataDir = tempDataDir();
  await prepareCatalog({ databaseUrl, dataDir });
  const titles = await catalogTitles(databaseUrl);
  const file = path.join(dataDir, 'watched-history.json');
  const size = await writeHistory(file, titles, ROWS);
  const smallFile = path.join(dataDir, 'watched-history-small.json');
  const smallSize = await writeHistory(smallFile, titles, SMALL_ROWS);
  const users = [await benchUser(databaseUrl), await benchUser(databaseUrl), await benchUser(databaseUrl)];
  try {
    const small = await runImport(databaseUrl, users[1]!.username, smallFile);
    const first = await runImport(databaseUrl, users[0]!.username, file);
    const second = await runImport(databaseUrl, users[0]!.username, file);
    const baseline = await apiBaseline(databaseUrl, file, users[2]!.id);
    return { rows: ROWS, fileMiB: size / 2 ** 20, first, second, small: { rows: SMALL_ROWS, fileMiB: smallSize / 2 ** 20, pass: small }, baseline };
  } finally {
    const again = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
    for (const u of users) await query(again.orm.em.fork(), { text: 'delete from app_user where id = $1', params: [u.id] });
    await again.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const perSecond = (b: ImportBench, p: Pass) => b.rows / p.seconds;
const mib = (v: number | null) => (v == null ? 'n/a' : `${v.toFixed(0)} MiB`);
/** Peak RSS of the full file's first import over the tenth-size file's: 1.00 is perfectly flat. */
const rssGrowth = (b: ImportBench) => (b.first.peakRssMiB && b.small.pass.peakRssMiB ? b.first.peakRssMiB / b.small.pass.peakRssMiB : null);
const growthText = (b: ImportBench) => {
  const g = rssGrowth(b);
  return `${b.small.rows} rows (${b.small.fileMiB.toFixed(1)} MiB): peak RSS ${mib(b.small.pass.peakRssMiB)}; ${b.rows} rows over ${b.small.rows}: ${g == null ? 'n/a' : `${g.toFixed(2)}x`} for 10x the rows`;
};
const baselineText = (b: ImportBench) => {
  const api = b.baseline.inserted / b.baseline.seconds;
  return `${b.baseline.seconds.toFixed(1)} s, ${api.toFixed(0)} items/s (${b.baseline.inserted} inserted); the first import's items/s over it: ${(perSecond(b, b.first) / api).toFixed(2)}x`;
};
const counts = (s: Summary) => `${s.imported} imported, ${s.alreadyThere} already there, ${s.unmatched} unmatched, ${s.invalid} invalid`;

export function printImport(b: ImportBench): void {
  console.log(`\nimport (services mode, Trakt watched-history.json, ${b.rows} rows, ${b.fileMiB.toFixed(1)} MiB, through admin import)`);
  console.log(`  first import: ${b.first.seconds.toFixed(1)} s, ${perSecond(b, b.first).toFixed(0)} items/s, peak RSS ${mib(b.first.peakRssMiB)} (${counts(b.first.summary)})`);
  console.log(`  memory, ${growthText(b)}`);
  console.log(`  baseline, the same items as one app's POST /sync/history batches: ${baselineText(b)}`);
  console.log(`  same file again: ${b.second.seconds.toFixed(1)} s, ${perSecond(b, b.second).toFixed(0)} items/s, peak RSS ${mib(b.second.peakRssMiB)} (${counts(b.second.summary)})`);
}

export function importSection(b: ImportBench): Section {
  const s = section(
    'Import (services mode)',
    `A Trakt \`watched-history.json\` of ${b.rows.toLocaleString('en')} plays (${Math.round(EPISODE_SHARE * 100)}% episodes of ${SHOWS} shows, the rest over ${MOVIES.toLocaleString('en')} movies; ${b.fileMiB.toFixed(1)} MiB) imported with \`admin import\` as \`npm run admin\` runs it (stored in the database, checked, then written in batches of 100 through bulk sync), then the same file again. Peak RSS is the CLI process's. For flat memory, a file of a tenth the rows is imported into another account in the same run, and the two peaks compared. The baseline sends the same items through the API in the same run. Issue 22 asks for items/s and peak RSS; it sets no target.`,
    {
      values: [
        { label: 'First import', value: `${b.first.seconds.toFixed(1)} s, ${perSecond(b, b.first).toFixed(0)} items/s, peak RSS ${mib(b.first.peakRssMiB)}; ${counts(b.first.summary)}` },
        { label: 'Memory against file size', value: growthText(b) },
        { label: "Baseline: the same items as one app's POST /sync/history batches of 100, back to back", value: baselineText(b) },
        { label: 'Same file again', value: `${b.second.seconds.toFixed(1)} s, ${perSecond(b, b.second).toFixed(0)} items/s, peak RSS ${mib(b.second.peakRssMiB)}; ${counts(b.second.summary)}` },
      ],
    },
  );
  s.peakRssMiB = Math.max(b.first.peakRssMiB ?? 0, b.second.peakRssMiB ?? 0) || null;
  return s;
}
