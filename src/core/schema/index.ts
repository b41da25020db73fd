// Every table's entity, in one list: the ORM registers them (db/orm.ts), and the typed query builder
// (db/query-builder.ts) takes its table and column names from them, so `tsc` refuses a query that names
// a column no entity has. The schema is the ground floor: its files import nothing of the project's but
// each other, so every module can read any table without an import reaching back up.
import type { InferKyselyDB } from '@mikro-orm/postgresql';
import { AppUser } from './accounts.ts';
import { App, AppGrant } from './apps.ts';
import { CatalogFetch, DemoImportStep, Episode, Season, Title, TitleRecommendation, TitleTrending } from './catalog.ts';
import { ChangeLog } from './changes.ts';
import { CollectionItem } from './collection.ts';
import { CommunityDailyStats } from './community.ts';
import { UserDayFigures, UserFigures, UserLibraryCount, UserMonthGenre, UserStreakRun, UserTitleFigures } from './figures.ts';
import { PushDevice } from './devices.ts';
import { StreamEvent, StreamTicket } from './events.ts';
import { ImportChunk, ImportRow, ImportRun } from './import.ts';
import { JobRun } from './job-runs.ts';
import { UserRating, UserTitleState, WatchHistory } from './library.ts';
import { List, ListItem, ListLike, ListMember } from './lists.ts';
import { Notification, NotificationPreference } from './notifications.ts';
import { ContinueWatching, PlaybackEventReceipt, PlaybackSession } from './playback.ts';
import { UserPreferences } from './profile.ts';
import { SyncIdempotency } from './sync.ts';
import { OauthArtifact, OauthKey } from './tokens.ts';
import { TrophyCursor, UserTrophy } from './trophies.ts';
import { WebhookDelivery, WebhookSubscription } from './webhooks.ts';

export const entities = [
  AppUser, App, AppGrant, CatalogFetch, DemoImportStep, Episode, Season, Title, TitleRecommendation, TitleTrending, ChangeLog, CollectionItem,
  CommunityDailyStats, PushDevice, StreamEvent, StreamTicket, ImportChunk, ImportRow, ImportRun, JobRun, UserRating, UserTitleState, WatchHistory,
  List, ListItem, ListLike, ListMember, Notification, NotificationPreference, ContinueWatching,
  PlaybackEventReceipt, PlaybackSession, UserPreferences, SyncIdempotency, OauthArtifact, OauthKey, TrophyCursor,
  UserTrophy, UserFigures, UserTitleFigures, UserDayFigures, UserMonthGenre, UserStreakRun, UserLibraryCount,
  WebhookSubscription, WebhookDelivery,
] as const;

/** The tables and columns as the query builder sees them, inferred from the entities. */
export type Tables = InferKyselyDB<(typeof entities)[number]>;
