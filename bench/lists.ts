// Lists at scale (services mode, 16 connections): GET /me/lists for a user with 10,000 lists (each with
// 5 items, so every summary computes its preview posters) and GET /lists/{id}/items over a 10,000-item
// list, every page of the walk by nextCursor at the default page size (50) and the maximum (100):
// requests/s, p50 and p99 through the whole service. For item pages, the page statement through a bare
// `pg` pool is the baseline (the service also checks the viewer's access to the list first).
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { openDatabase, migrate } from '../src/core/db/orm.ts';
import { query, type Sql } from '../src/core/db/sql.ts';
import { offline } from '../src/core/db/compile.ts';
import { itemPageQuery } from '../src/core/lists/item-repository.ts';
import { bareBaseline, benchDatabaseUrl, type Figures, formatRow, loadPaths, prepareCatalog, recountListsOf, startService, tempDataDir, tokenIssuer } from './lib.ts';
import { section, type Growth, type Section } from './report.ts';
import { statementOf } from './statements.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const LISTS = 10_000;
const ITEMS_PER_LIST = 5;
const BIG_LIST = 10_000;
const LIMITS = [50, 100];
/** The cost-growth run's smaller user: a tenth of LISTS lists and of BIG_LIST items, at the default limit. */
const SMALL = 1_000;
const GROWTH_LIMIT = 50;

type Seeded = { userId: string; token: string; bigListId: string; positions: [string, string][]; cleanup(): Promise<void> };

/** A user with `lists` lists of ITEMS_PER_LIST items and one list of `bigList` items (SQL; counts recomputed). */
async function seed(databaseUrl: string, lists: number, bigList: number): Promise<Seeded> {
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  try {
    await migrate(db.orm);
    const em = db.orm.em.fork();
    const user = await createUser(em, { username: `bench_lists_${Math.random().toString(36).slice(2, 8)}`, password: 'bench-password-1' });
    const app = await createApp(em, { name: 'Lists bench', redirectUris: ['http://127.0.0.1:1/cb'], scopes: ['lists:read'], confidential: false, official: false });
    const token = await (await tokenIssuer(db, databaseUrl))(user.id, app.client_id, 'lists:read');
    await query(em, { text: `insert into list (owner_id, name, is_public) select $1, 'Bench list ' || n, n % 2 = 0 from generate_series(1, $2) n`, params: [user.id, lists] });
    await query(em, {
      text: `insert into list_item (list_id, title_id, position)
        select l.id, t.id, k from list l cross join generate_series(1, $2) k
        join lateral (select id from title order by popularity desc, id offset (l.id % 500) * $2 + k - 1 limit 1) t on true
        where l.owner_id = $1`,
      params: [user.id, ITEMS_PER_LIST],
    });
    const [big] = await query<{ id: string }>(em, { text: `insert into list (owner_id, name) values ($1, 'Ten thousand') returning id`, params: [user.id] });
    await query(em, {
      text: `insert into list_item (list_id, title_id, position) select $1, id, row_number() over (order by popularity desc, id) from (select id, popularity from title order by popularity desc, id limit $2) t`,
      params: [big!.id, bigList],
    });
    await recountListsOf(em, user.id);
    await query(em, { text: 'analyze list; analyze list_item; analyze list_member', params: [] });
    const positions = await query<{ position: string; id: string }>(em, { text: `select position, id from list_item where list_id = $1 order by position, id`, params: [big!.id] });
    return {
      positions: positions.map((r) => [String(r.position), String(r.id)]),
      userId: user.id,
      token,
      bigListId: String(big!.id),
      cleanup: async () => {
        const again = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
        await query(again.orm.em.fork(), { text: 'delete from app_user where id = $1', params: [user.id] });
        await again.close();
      },
    };
  } finally {
    await db.close();
  }
}

/** Every page's path of a walk by nextCursor. */
async function walk(url: string, token: string, path: string, limit: number): Promise<string[]> {
  const paths: string[] = [];
  let cursor: string | undefined;
  do {
    const p = `/api/platform/v1${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await fetch(`${url}${p}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`${p} answered ${res.status}`);
    paths.push(p);
    cursor = ((await res.json()) as { nextCursor?: string }).nextCursor;
  } while (cursor);
  return paths;
}

/** The page statements of the same walk over the big list: each page starts after the last item of the one before. */
function itemPageStatements(who: Seeded, limit: number, pages: number): Sql[] {
  return Array.from({ length: pages }, (_, i) => statementOf(itemPageQuery(offline, who.bigListId, who.userId, i === 0 ? null : who.positions[i * limit - 1]!, limit)));
}

export type ListsBench = {
  lists: number;
  items: number;
  myLists: Array<{ limit: number; pages: number; service: Figures }>;
  itemPages: Array<{ limit: number; pages: number; service: Figures; bare: Figures; ratio: number }>;
  /** The same walks at GROWTH_LIMIT for a user with a tenth of the data. */
  growth: Growth[];
};

export async function benchLists(): Promise<ListsBench> {
  const databaseUrl = benchDatabaseUrl();
  await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const who = await seed(databaseUrl, LISTS, BIG_LIST);
  const few = await seed(databaseUrl, SMALL, SMALL);
  const service = await startService({ DATABASE_URL: databaseUrl });
  try {
    const myLists: ListsBench['myLists'] = [];
    const itemPages: ListsBench['itemPages'] = [];
    for (const limit of LIMITS) {
      const paths = await walk(service.url, who.token, '/me/lists', limit);
      myLists.push({ limit, pages: paths.length, service: await loadPaths(service.url, who.token, paths, CONNECTIONS, SECONDS) });
    }
    for (const limit of LIMITS) {
      const paths = await walk(service.url, who.token, `/lists/${who.bigListId}/items`, limit);
      const statements = itemPageStatements(who, limit, paths.length);
      await bareBaseline(databaseUrl, statements, CONNECTIONS, 2);
      const bare = await bareBaseline(databaseUrl, statements, CONNECTIONS, SECONDS);
      const measured = await loadPaths(service.url, who.token, paths, CONNECTIONS, SECONDS);
      itemPages.push({ limit, pages: paths.length, service: measured, bare, ratio: measured.requestsPerSecond / bare.requestsPerSecond });
    }
    const smallLists = await loadPaths(service.url, few.token, await walk(service.url, few.token, '/me/lists', GROWTH_LIMIT), CONNECTIONS, SECONDS);
    const smallItems = await loadPaths(service.url, few.token, await walk(service.url, few.token, `/lists/${few.bigListId}/items`, GROWTH_LIMIT), CONNECTIONS, SECONDS);
    const growth: Growth[] = [
      { endpoint: `GET /me/lists, limit ${GROWTH_LIMIT}, every page`, unit: 'req/s', small: { size: SMALL + 1, figures: smallLists }, large: { size: LISTS + 1, figures: myLists.find((r) => r.limit === GROWTH_LIMIT)!.service } },
      { endpoint: `GET /lists/{id}/items, limit ${GROWTH_LIMIT}, every page`, unit: 'req/s', small: { size: SMALL, figures: smallItems }, large: { size: BIG_LIST, figures: itemPages.find((r) => r.limit === GROWTH_LIMIT)!.service } },
    ];
    return { lists: LISTS + 1, items: BIG_LIST, myLists, itemPages, growth };
  } finally {
    await service.stop();
    await who.cleanup();
    await few.cleanup();
  }
}

export function printLists(b: ListsBench): void {
  console.log(`\nlists (services mode, every page of the walk by nextCursor, ${CONNECTIONS} connections, ${SECONDS} s each)`);
  for (const r of b.myLists) console.log(formatRow(`  GET /me/lists, ${b.lists} lists, limit ${r.limit} (${r.pages} pages)`, r.service));
  for (const r of b.itemPages) {
    console.log(formatRow(`  GET /lists/{id}/items, ${b.items} items, limit ${r.limit} (${r.pages} pages)`, r.service));
    console.log(formatRow(`  item page limit ${r.limit}: page SQL through bare pg`, r.bare));
    console.log(`  item page limit ${r.limit}: service / bare throughput ratio ${r.ratio.toFixed(2)}`);
  }
  for (const g of b.growth) console.log(formatRow(`  ${g.endpoint} at ${g.small.size} (vs ${g.large.size} above)`, g.small.figures));
}

export function listsSection(b: ListsBench): Section {
  return section(
    'Lists (services mode)',
    `\`GET /me/lists\` for a user with ${b.lists.toLocaleString('en')} lists (5 items each, so every summary computes its preview posters) and \`GET /lists/{id}/items\` over a ${b.items.toLocaleString('en')}-item list: every page of the walk by nextCursor, ${CONNECTIONS} connections. Baseline for item pages: the page statement through bare \`pg\`. Issue 6 asks for p50 and p99; it sets no target.`,
    {
      measures: [
        ...b.myLists.map((r) => ({ label: `GET /me/lists, limit ${r.limit} (${r.pages} pages)`, figures: r.service })),
        ...b.itemPages.map((r) => ({ label: `GET /lists/{id}/items, limit ${r.limit} (${r.pages} pages)`, figures: r.service, baseline: { label: 'page SQL, bare pg', figures: r.bare } })),
      ],
      growth: b.growth,
    },
  );
}

if (import.meta.main) printLists(await benchLists());
