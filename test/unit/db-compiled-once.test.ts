// Hot reads compiled once per shape (core/db/compiled-once.ts): a call gives exactly the statement
// (text and parameters, in order) that building it from that call's own values gives, for every shape,
// and a statement whose text a value chose is refused rather than reused with the wrong text.
import { describe, expect, it } from 'vitest';
import { offline } from '../../src/core/db/compile.ts';
import { compiledOnce } from '../../src/core/db/compiled-once.ts';
import { historyPageQuery, historyPageStatement, type HistoryFilters } from '../../src/core/library/history-repository.ts';
import { titleDetailQuery, titleDetailStatement, type TitleDetailQuery } from '../../src/core/titles/repository.ts';
import { libraryPageQuery, libraryPageStatement } from '../../src/core/library/items-repository.ts';

const alice = '00000000-0000-4000-8000-00000000000a';
const bob = '00000000-0000-4000-8000-00000000000b';

describe('compiledOnce', () => {
  it('fills the shape of each call with its own values, in the order the parameters run', () => {
    const statement = compiledOnce(
      (q: { userId: string; kind: 'a' | 'b'; limit: number }) =>
        offline.selectFrom('watch_history').select('id').where('user_id', '=', q.userId).$if(q.kind === 'b', (b) => b.where('episode_id', 'is', null)).limit(q.limit),
      (q, value) => ({ ...q, userId: value(q.userId), limit: value(q.limit) }),
    );
    for (const q of [
      { userId: alice, kind: 'a' as const, limit: 5 },
      { userId: bob, kind: 'a' as const, limit: 7 },
      { userId: bob, kind: 'b' as const, limit: 9 },
      { userId: alice, kind: 'b' as const, limit: 1 },
    ]) {
      const c = statement(q);
      const direct = offline.selectFrom('watch_history').select('id').where('user_id', '=', q.userId).$if(q.kind === 'b', (b) => b.where('episode_id', 'is', null)).limit(q.limit).compile();
      expect({ sql: c.sql, parameters: c.parameters }).toEqual({ sql: direct.sql, parameters: direct.parameters });
    }
  });

  it('refuses a shape whose text a value chose (here: the limit as a literal)', () => {
    const statement = compiledOnce(
      (q: { limit: number }) => offline.selectFrom('title').select('id').limit(offline.dynamic.ref(String(q.limit)) as never),
      (q, value) => ({ limit: value(q.limit) }),
    );
    expect(() => statement({ limit: 3 })).toThrow('compiledOnce: a value shaped the statement, not only its parameters');
  });

  it('the title detail: every state a token may see, for movies and shows', () => {
    const users = [null, alice, bob];
    for (const type of ['movie', 'show'] as const) {
      for (const historyOf of users) {
        for (const ratingsOf of users) {
          const q: TitleDetailQuery = { type, movieDbId: 100 + users.indexOf(historyOf), scope: type === 'movie' ? 'title' : 'series', today: '2026-11-24', state: { historyOf, ratingsOf, listsOf: ratingsOf, collectionOf: historyOf } };
          const direct = titleDetailQuery(offline, q).compile();
          const once = titleDetailStatement(q);
          expect({ sql: once.sql, parameters: once.parameters }).toEqual({ sql: direct.sql, parameters: direct.parameters });
        }
      }
    }
  });

  it('the history page: each filter and cursor combination', () => {
    const starts = [undefined, new Date('2026-01-01T00:00:00Z')];
    const afters: HistoryFilters['after'][] = [null, ['2026-05-01T10:00:00.123456Z', '42']];
    for (const type of [undefined, 'movie', 'anime'] as const) {
      for (const startAt of starts) {
        for (const after of afters) {
          for (const userId of [alice, bob]) {
            const filters: HistoryFilters = { type, startAt, endAt: startAt && new Date('2026-12-01T00:00:00Z'), after, rows: 51 };
            const c = historyPageStatement({ userId, filters });
            const direct = historyPageQuery(offline, userId, filters).compile();
            expect({ sql: c.sql, parameters: c.parameters }).toEqual({ sql: direct.sql, parameters: direct.parameters });
          }
        }
      }
    }
  });

  it('the ratings, favourites and statuses pages: each list and filter, any window', () => {
    for (const list of ['ratings', 'favourites', 'statuses'] as const) {
      for (const f of [{}, { type: 'movie' as const }, { scope: 'series' as const }, { status: 'watching' as const }]) {
        for (const page of [{ limit: 50, offset: 0 }, { limit: 20, offset: 40 }]) {
          const c = libraryPageStatement({ userId: alice, list, f, page });
          const direct = libraryPageQuery(offline, alice, list, f, page).compile();
          expect({ sql: c.sql, parameters: c.parameters }).toEqual({ sql: direct.sql, parameters: direct.parameters });
        }
      }
    }
  });
});
