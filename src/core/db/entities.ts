// Every table's entity, in one list: the ORM registers them, and the typed query builder (`db(em)`)
// takes its table and column names from them, so `tsc` refuses a query that names a column no entity has.
import type { EntityManager, InferKyselyDB } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import { AccountSession, AppUser } from '../accounts/entities.ts';
import { App, AppGrant } from '../apps/entities.ts';
import { DemoImportStep, Episode, Season, Title, TitleRecommendation, TitleTrending } from '../catalog/entities.ts';
import { ChangeLog } from '../changes/entities.ts';
import { CollectionItem } from '../collection/entities.ts';
import { CommunityDailyStats } from '../community/entities.ts';
import { PushDevice } from '../devices/entities.ts';
import { StreamEvent, StreamTicket } from '../events/entities.ts';
import { ImportChunk, ImportRow, ImportRun } from '../import/entities.ts';
import { JobRun } from '../job-runs/entities.ts';
import { UserRating, UserTitleState, WatchHistory } from '../library/entities.ts';
import { List, ListItem, ListLike, ListMember } from '../lists/entities.ts';
import { Notification, NotificationPreference } from '../notifications/entities.ts';
import { ContinueWatching, PlaybackEventReceipt, PlaybackSession } from '../playback/entities.ts';
import { UserPreferences } from '../profile/entities.ts';
import { SyncIdempotency } from '../sync/entities.ts';
import { OauthArtifact, OauthKey } from '../tokens/entities.ts';
import { TrophyCursor, UserTrophy } from '../trophies/entities.ts';

export const entities = [
  AccountSession, AppUser, App, AppGrant, DemoImportStep, Episode, Season, Title, TitleRecommendation, TitleTrending, ChangeLog, CollectionItem,
  CommunityDailyStats, PushDevice, StreamEvent, StreamTicket, ImportChunk, ImportRow, ImportRun, JobRun, UserRating, UserTitleState, WatchHistory,
  List, ListItem, ListLike, ListMember, Notification, NotificationPreference, ContinueWatching,
  PlaybackEventReceipt, PlaybackSession, UserPreferences, SyncIdempotency, OauthArtifact, OauthKey, TrophyCursor,
  UserTrophy,
] as const;

/** The tables and columns as the query builder sees them, inferred from the entities. */
export type Tables = InferKyselyDB<(typeof entities)[number]>;

/**
 * The typed query builder on `em`'s connection (inside its transaction when it has one). Values come back
 * as the pool parses them (value-types.ts): timestamptz as Date, bigint as string, date and interval as
 * text, json as its value. JSON written to a json column goes through `jsonb(value)` (json.ts): pg would
 * send a JavaScript array as a PostgreSQL array.
 */
export function db(em: EntityManager): Kysely<Tables> {
  return em.getKysely<Tables>();
}
