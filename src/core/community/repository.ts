// The community module's statements: the overview's figures, the public profile's reads, list like
// counts and the daily statistics roll-up.
import type { EntityManager } from '@mikro-orm/postgresql';
import { itemColumns } from '../catalog/repository.ts';
import { db } from '../db/query-builder.ts';
import { recordset } from '../db/recordset.ts';

// ---- overview

/**
 * Users with a watch in [monthAgo, now] and in [weekAgo, now], and the watches in [weekAgo, now]
 * (watches logged "in the future" within the clock-skew allowance do not count yet).
 */
export function activity(em: EntityManager, monthAgo: Date, weekAgo: Date, now: Date) {
  return db(em)
    .selectFrom('watch_history')
    .select((eb) => [
      eb.cast<number>(eb.fn.count('user_id').distinct().filterWhere('watched_at', '>=', weekAgo), 'integer').as('week_users'),
      eb.cast<number>(eb.fn.count('user_id').distinct(), 'integer').as('month_users'),
      eb.cast<number>(eb.fn.countAll().filterWhere('watched_at', '>=', weekAgo), 'integer').as('week_watches'),
    ])
    .where('watched_at', '>=', monthAgo)
    .where('watched_at', '<=', now)
    .executeTakeFirst();
}

/** The `limit` titles with the most watchers in [since, now], then the most watches, with both counts. */
export function mostWatched(em: EntityManager, since: Date, now: Date, limit: number) {
  return db(em)
    .selectFrom((eb) =>
      eb
        .selectFrom('watch_history')
        .select((s) => ['title_id', s.cast<number>(s.fn.count('user_id').distinct(), 'integer').as('watchers'), s.cast<number>(s.fn.countAll(), 'integer').as('watches')])
        .where('watched_at', '>=', since)
        .where('watched_at', '<=', now)
        .groupBy('title_id')
        .orderBy('watchers', 'desc')
        .orderBy('watches', 'desc')
        .orderBy('title_id')
        .limit(limit)
        .as('x'),
    )
    .innerJoin('title as t', 't.id', 'x.title_id')
    .select((eb) => [...itemColumns(eb), 'x.watchers', 'x.watches'])
    .orderBy('x.watchers', 'desc')
    .orderBy('x.watches', 'desc')
    .orderBy('t.id')
    .execute();
}

/**
 * The `limit` most liked public lists (likes counted over the whole like table, an index-only scan of
 * its primary key) of users whose profile is public: a private user appears nowhere on the public API.
 */
export async function topListIds(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await db(em)
    .selectFrom((eb) => eb.selectFrom('list_like').select((s) => ['list_id', s.fn.countAll().as('likes')]).groupBy('list_id').as('c'))
    .innerJoin('list as l', (j) => j.onRef('l.id', '=', 'c.list_id').on('l.is_public', '=', true))
    .innerJoin('app_user as u', (j) => j.onRef('u.id', '=', 'l.owner_id').on('u.profile_privacy', '=', 'public'))
    .select('l.id')
    .orderBy('c.likes', 'desc')
    .orderBy('l.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** The like count of each of these lists that has a like. */
export function likeCounts(em: EntityManager, listIds: readonly string[]) {
  return db(em)
    .selectFrom('list_like')
    .select((eb) => ['list_id', eb.cast<number>(eb.fn.countAll(), 'integer').as('n')])
    .where('list_id', '=', (eb) => eb.fn.any(eb.val([...listIds])))
    .groupBy('list_id')
    .execute();
}

// ---- public profile

/** The user of this username (any case) if their profile is public. */
export function publicUser(em: EntityManager, username: string) {
  return db(em)
    .selectFrom('app_user')
    .select(['id', 'username', 'display_name', 'avatar_url', 'bio', 'created_at'])
    .where((eb) => eb(eb.fn('lower', ['username']), '=', eb.fn('lower', [eb.val(username)])))
    .where('profile_privacy', '=', 'public')
    .executeTakeFirst();
}

/** The user's favourites (from the favourites list's kept counts) and public lists. */
export function profileCounts(em: EntityManager, userId: string) {
  return db(em)
    .selectNoFrom((eb) => [
      eb
        .selectFrom('user_library_count')
        .select((s) => s.cast<number>(s.fn.sum('n'), 'integer').as('n'))
        .where('user_id', '=', userId)
        .where('list', '=', 'favourites')
        .as('favourites'),
      eb
        .selectFrom('list')
        .select((s) => s.cast<number>(s.fn.countAll(), 'integer').as('n'))
        .where('owner_id', '=', userId)
        .where('is_public', '=', true)
        .as('public_lists'),
    ])
    .executeTakeFirstOrThrow();
}

/** The user's `limit` most recently favourited titles. */
export function favouriteItems(em: EntityManager, userId: string, limit: number) {
  return db(em)
    .selectFrom('user_title_state as s')
    .innerJoin('title as t', 't.id', 's.title_id')
    .select(itemColumns)
    .where('s.user_id', '=', userId)
    .where('s.is_favourite', '=', true)
    .orderBy('s.favourited_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(limit)
    .execute();
}

/** The user's `limit` public lists, most liked first, then newest. */
export async function profileListIds(em: EntityManager, userId: string, limit: number): Promise<string[]> {
  const rows = await db(em)
    .selectFrom('list as l')
    .select('l.id')
    .where('l.owner_id', '=', userId)
    .where('l.is_public', '=', true)
    .orderBy((eb) => eb.selectFrom('list_like as k').select((s) => s.fn.countAll().as('n')).whereRef('k.list_id', '=', 'l.id'), 'desc')
    .orderBy('l.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

// ---- daily statistics

/** A UTC day to roll up: [starts, ends), ends at most now. */
export type DueDay = { day: string; starts: Date; ends: Date };

const dueDays = (days: readonly DueDay[]) => recordset<DueDay, 'due'>(days, 'due', 'day date, starts timestamptz, ends timestamptz');

/**
 * Rolls up these days (each its users with a watch, watches, users who joined and ratings given), those of
 * them at or after `recomputeFrom` always, the others only when not rolled up yet (older days are final).
 * Upserts: an overlapping run is harmless. Returns how many days it wrote.
 */
export async function rollUpDays(em: EntityManager, days: readonly DueDay[], recomputeFrom: string, now: Date): Promise<number> {
  const row = await db(em)
    .with('upserted', (w) =>
      w
        .insertInto('community_daily_stats')
        .columns(['day', 'active_users', 'watches', 'new_users', 'ratings', 'computed_at'])
        .expression((eb) =>
          eb
            .selectFrom(dueDays(days))
            .select((s) => [
              'due.day',
              s.selectFrom('watch_history as w').select((c) => c.fn.count('w.user_id').distinct().as('n')).whereRef('w.watched_at', '>=', 'due.starts').whereRef('w.watched_at', '<', 'due.ends').as('active_users'),
              s.selectFrom('watch_history as w').select((c) => c.fn.countAll().as('n')).whereRef('w.watched_at', '>=', 'due.starts').whereRef('w.watched_at', '<', 'due.ends').as('watches'),
              s.selectFrom('app_user as u').select((c) => c.fn.countAll().as('n')).whereRef('u.created_at', '>=', 'due.starts').whereRef('u.created_at', '<', 'due.ends').as('new_users'),
              s.selectFrom('user_rating as r').select((c) => c.fn.countAll().as('n')).whereRef('r.rated_at', '>=', 'due.starts').whereRef('r.rated_at', '<', 'due.ends').as('ratings'),
              s.val(now).as('computed_at'),
            ])
            .where((s) =>
              s.or([s('due.day', '>=', recomputeFrom), s.not(s.exists(s.selectFrom('community_daily_stats as d').select(s.lit(1).as('one')).whereRef('d.day', '=', 'due.day')))]),
            ),
        )
        .onConflict((oc) =>
          oc.column('day').doUpdateSet((eb) => ({
            active_users: eb.ref('excluded.active_users'),
            watches: eb.ref('excluded.watches'),
            new_users: eb.ref('excluded.new_users'),
            ratings: eb.ref('excluded.ratings'),
            computed_at: eb.ref('excluded.computed_at'),
          })),
        )
        .returning((eb) => eb.lit(1).as('one')),
    )
    .selectFrom('upserted')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('days'))
    .executeTakeFirst();
  return row?.days ?? 0;
}

/** The rolled-up days in (after, upTo] (YYYY-MM-DD), oldest first. */
export function storedDays(em: EntityManager, after: string, upTo: string) {
  return db(em)
    .selectFrom('community_daily_stats')
    .select(['day', 'active_users', 'watches', 'new_users', 'ratings'])
    .where('day', '>', after)
    .where('day', '<=', upTo)
    .orderBy('day')
    .execute();
}
