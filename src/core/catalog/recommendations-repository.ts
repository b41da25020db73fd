// The statements behind precomputed recommendations (recommendations.ts): the catalog as the rule needs
// it, the lists written back, and whether they are stale.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { recordset } from '../db/recordset.ts';

export type RecommendationInput = { id: string; type: 'movie' | 'show'; isAnime: boolean; genres: string[]; popularity: number };

/** Every title, with what the rule ranks by (about 50,000 small rows for the demo catalog). */
export async function catalogForRecommendations(em: EntityManager): Promise<RecommendationInput[]> {
  const rows = await db(em).selectFrom('title').select(['id', 'type', 'is_anime', 'genres', 'popularity']).execute();
  return rows.map((r) => ({ id: r.id, type: r.type, isAnime: r.is_anime, genres: r.genres, popularity: r.popularity }));
}

/** Rows per statement: the JSON parameter of one statement stays a few MB. */
const ROWS_PER_STATEMENT = 10_000;

/** Writes each title's list (replacing the one it had), stamped with the transaction's time. */
export async function writeRecommendations(em: EntityManager, lists: Map<string, string[]>): Promise<void> {
  const rows = [...lists].map(([title_id, recommended_ids]) => ({ title_id, recommended_ids }));
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await db(em)
      .insertInto('title_recommendation')
      .columns(['title_id', 'recommended_ids', 'computed_at'])
      .expression((eb) =>
        eb
          .selectFrom(recordset<{ title_id: string; recommended_ids: string[] }, 'r'>(rows.slice(i, i + ROWS_PER_STATEMENT), 'r', 'title_id bigint, recommended_ids bigint[]'))
          .select((s) => ['r.title_id', 'r.recommended_ids', s.fn<Date>('now').as('computed_at')])
          // A title deleted since the catalog was read has no row to recommend for.
          .where((s) => s.exists(s.selectFrom('title as t').select('t.id').whereRef('t.id', '=', 'r.title_id'))),
      )
      .onConflict((oc) =>
        oc.column('title_id').doUpdateSet((eb) => ({ recommended_ids: eb.ref('excluded.recommended_ids'), computed_at: eb.ref('excluded.computed_at') })),
      )
      .execute();
  }
}

/** Whether a title changed after its recommendations were computed, or has none yet. */
export async function recommendationsStale(em: EntityManager): Promise<boolean> {
  const row = await db(em)
    .selectNoFrom((eb) =>
      eb
        .exists(
          eb
            .selectFrom('title as t')
            .leftJoin('title_recommendation as r', 'r.title_id', 't.id')
            .select('t.id')
            .where((w) => w.or([w('r.title_id', 'is', null), w('t.updated_at', '>', w.ref('r.computed_at'))])),
        )
        .as('stale'),
    )
    .executeTakeFirstOrThrow();
  return Boolean(row.stale);
}
