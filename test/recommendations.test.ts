// Precomputed recommendations (core/catalog/recommendations.ts): the lists written for every title are
// the ones the rule gives when a single SQL statement applies it to one title (the statement the title
// detail ran per request before they were stored, kept here as the reference), over a synthetic catalog
// built to hit the rule's edges (ties in popularity, titles beyond the 100 candidates sharing more
// genres, repeated genres, titles without genres, both types and anime-ness); a catalog import and the
// `recommendations` job recompute them when the catalog changes, and only then.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { importCatalog } from '../src/core/catalog/import/index.ts';
import type { CatalogSource, ImportTitle } from '../src/core/catalog/import/types.ts';
import { RECOMMENDATION_CANDIDATES, RECOMMENDATIONS_LIMIT, recommend, refreshStaleRecommendations } from '../src/core/catalog/recommendations.ts';
import { db as typed } from '../src/core/db/query-builder.ts';
import type { Tables } from '../src/core/schema/index.ts';
import type { Database } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { recommendationsJob } from '../src/jobs/recommendations.ts';
import { migratedDatabase } from './helpers/db.ts';

let db: Database;
let release: () => Promise<void>;

beforeAll(async () => {
  ({ db, release } = await migratedDatabase());
});
afterAll(() => release?.());

/** The rule as one statement for one title: the reference the stored lists must equal. */
function ruleAsStatement(k: Kysely<Tables>, titleId: string) {
  return k
    .selectFrom('title as t')
    .innerJoinLateral(
      (j) =>
        j
          .selectFrom((f) =>
            f
              .selectFrom('title as x')
              .select(['x.id', 'x.popularity', 'x.genres'])
              .whereRef('x.type', '=', 't.type')
              .whereRef('x.is_anime', '=', 't.is_anime')
              .where('x.genres', '&&', f.ref('t.genres'))
              .whereRef('x.id', '<>', 't.id')
              .orderBy('x.popularity', 'desc')
              .orderBy('x.id')
              .limit(RECOMMENDATION_CANDIDATES)
              .as('c'),
          )
          .selectAll('c')
          .select((s) =>
            s
              .selectFrom(s.fn<{ g: string }>('unnest', ['c.genres']).as('g'))
              .select((g) => g.fn.countAll().as('n'))
              .where('g.g', '=', s.fn.any('t.genres'))
              .as('shared'),
          )
          .orderBy('shared', 'desc')
          .orderBy('c.popularity', 'desc')
          .orderBy('c.id')
          .limit(RECOMMENDATIONS_LIMIT)
          .as('r'),
      (on) => on.onTrue(),
    )
    .select('r.id')
    .where('t.id', '=', titleId)
    .orderBy('r.shared', 'desc')
    .orderBy('r.popularity', 'desc')
    .orderBy('r.id');
}

async function stored(): Promise<Map<string, string[]>> {
  const rows = await typed(db.orm.em.fork()).selectFrom('title_recommendation').select(['title_id', 'recommended_ids']).execute();
  return new Map(rows.map((r) => [r.title_id, r.recommended_ids]));
}

/** A small deterministic random source (the test must not change between runs). */
function lcg(seed: number) {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
}

const GENRES = ['Drama', 'Comedy', 'Action', 'Horror', 'Romance', 'Animation', 'Documentary', 'Thriller'];
const BASE_ID = 7_000_000;

describe('precomputed recommendations follow the rule', () => {
  it('equal the rule applied per title by one statement, for every title of a catalog built to hit its edges', async () => {
    const random = lcg(42);
    const titles: ImportTitle[] = Array.from({ length: 1500 }, (_, i) => ({
      type: random() < 0.8 ? 'movie' : 'show',
      movieDbId: BASE_ID + i,
      isAnime: random() < 0.15,
      name: `Edge ${i}`,
      year: 2000,
      source: 'test',
      // 0 to 3 genres, sometimes one twice.
      genres: Array.from({ length: Math.floor(random() * 4) }, () => GENRES[Math.floor(random() * GENRES.length)]!),
      // Few distinct values: many ties, broken by id.
      popularity: Math.floor(random() * 40),
    }));
    const em = db.orm.em.fork();
    // The import computes them at its end.
    await importCatalog(em, [source(titles)]);
    const lists = await stored();
    const ids = await typed(em).selectFrom('title').select('id').where('movie_db_id', '>=', BASE_ID).execute();
    expect(ids.length).toBe(1500);
    let withTen = 0;
    for (const { id } of ids) {
      const expected = (await ruleAsStatement(typed(em), id).execute()).map((r) => r.id);
      expect(lists.get(id), `title ${id}`).toEqual(expected);
      if (expected.length === RECOMMENDATIONS_LIMIT) withTen++;
    }
    // The catalog is large enough that most titles have a full list, so the candidate cut-off matters.
    expect(withTen).toBeGreaterThan(1000);
  });

  it('ranks by shared genres among the 100 most popular candidates only, then popularity, then id, never the title itself', () => {
    const t = (id: number, genres: string[], popularity: number, extra: Partial<{ type: 'movie' | 'show'; isAnime: boolean }> = {}) => ({
      id: String(id),
      type: 'movie' as const,
      isAnime: false,
      genres,
      popularity,
      ...extra,
    });
    const catalog = [
      t(1, ['A', 'B'], 50),
      // Shares both genres but is the least popular of 101 candidates: outside the 100, never chosen.
      t(2, ['A', 'B'], 0),
      ...Array.from({ length: 98 }, (_, i) => t(100 + i, ['A'], 10)),
      t(3, ['A', 'B'], 10), // shares two, ties on popularity with the many: first
      t(4, ['B', 'B'], 5), // one genre twice counts twice
      t(5, ['A'], 1000, { type: 'show' }), // another type
      t(6, ['A'], 1000, { isAnime: true }), // another anime-ness
      t(7, [], 1000),
    ];
    const lists = recommend(catalog);
    expect(lists.get('1')).toEqual(['3', '4', '100', '101', '102', '103', '104', '105', '106', '107']);
    expect(lists.get('7')).toEqual([]);
    expect(lists.get('5')).toEqual([]);
    // Title 3 does not recommend itself; the 100 most popular others leave out title 2 (popularity 0).
    expect(lists.get('3')).toEqual(['1', '4', '100', '101', '102', '103', '104', '105', '106', '107']);
    // For title 2 the 100 candidates end before title 4 (popularity 5), which shares two genres too.
    expect(lists.get('2')).toEqual(['1', '3', '100', '101', '102', '103', '104', '105', '106', '107']);
  });
});

/** A catalog source of the given items (the importer's own path). */
function source(items: ImportTitle[]): CatalogSource {
  return {
    name: 'test',
    async *items() {
      yield* items;
    },
  };
}

/** The first edge title with a genre. */
async function withGenres() {
  const [row] = await query<{ id: string; genres: string[]; type: 'movie' | 'show'; is_anime: boolean }>(db.orm.em.fork(), {
    text: `select id::text as id, genres, type, is_anime from title where movie_db_id >= $1 and cardinality(genres) > 0 order by movie_db_id limit 1`,
    params: [BASE_ID],
  });
  return row!;
}

describe('recomputed when the catalog changes', () => {
  it('a catalog import recomputes every title\'s list: a new popular title of the same genres comes first', async () => {
    const em = db.orm.em.fork();
    const first = await withGenres();
    const before = (await stored()).get(first.id)!;
    await importCatalog(em, [
      source([
        {
          type: first.type,
          movieDbId: BASE_ID + 5000,
          name: 'Newly Popular',
          year: 2026,
          genres: first.genres,
          popularity: 1_000_000,
          isAnime: first.is_anime,
          source: 'test',
        },
      ]),
    ]);
    const after = (await stored()).get(first.id)!;
    const [added] = await typed(em).selectFrom('title').select('id').where('movie_db_id', '=', BASE_ID + 5000).execute();
    expect(after).not.toEqual(before);
    expect(after).toContain(added!.id);
    expect((await stored()).has(added!.id)).toBe(true);
  });

  it('the job recomputes them when a title changed since, and does nothing when none did', async () => {
    const em = db.orm.em.fork();
    expect(await recommendationsJob.run(em, new Date())).toEqual({ titles: 0 });
    const first = await withGenres();
    const [other] = await query<{ id: string }>(em, {
      text: `select id::text as id from title where type = (select type from title where id = $1) and is_anime = (select is_anime from title where id = $1)
        and genres && $2::text[] and id <> $1 and not (id = any(select unnest(recommended_ids) from title_recommendation where title_id = $1)) order by id limit 1`,
      params: [first.id, first.genres],
    });
    // Another title changes outside an import: it takes the first title's genres (three times over: the
    // most shared of any title) and the highest popularity, and its updated_at changes with it.
    await query(em, {
      text: 'update title set popularity = 2000000, genres = $2::text[] || $2::text[] || $2::text[], updated_at = now() where id = $1',
      params: [other!.id, first.genres],
    });
    const summary = await recommendationsJob.run(em, new Date());
    expect(summary.titles).toBeGreaterThan(1500);
    expect((await stored()).get(first.id)![0]).toBe(other!.id);
    expect(await refreshStaleRecommendations(em)).toEqual({ titles: 0 });
  });

  it('a title without a list yet (inserted behind the importer\'s back) makes them stale', async () => {
    const em = db.orm.em.fork();
    await query(em, { text: `insert into title (type, movie_db_id, category, name, year, source, genres) values ('movie', $1, 'movie', 'Late', 2000, 'test', '{Drama}')`, params: [BASE_ID + 6000] });
    const summary = await refreshStaleRecommendations(em);
    expect(summary.titles).toBeGreaterThan(1500);
    const [late] = await typed(em).selectFrom('title').select('id').where('movie_db_id', '=', BASE_ID + 6000).execute();
    expect((await stored()).get(late!.id)!.length).toBe(RECOMMENDATIONS_LIMIT);
  });
});
