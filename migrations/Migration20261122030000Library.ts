// The user's library and the change feed's log.
// change_log: every write to a user's data adds a row in the same transaction. `xid` is the
// writing transaction's id; the feed reads rows below the oldest still-open transaction, in (xid, id)
// order, so a transaction that commits late can never land behind a cursor already handed out.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122030000Library extends Migration {
  override up(): void {
    this.addSql(`
      create table change_log (
        id bigint generated always as identity primary key,
        xid xid8 not null default pg_current_xact_id(),
        user_id uuid not null references app_user (id) on delete cascade,
        resource text not null,
        resource_id text not null,
        op text not null check (op in ('upsert', 'delete')),
        data jsonb,
        changed_at timestamptz not null default now()
      )`);
    this.addSql(`create index change_log_user_position on change_log (user_id, xid, id)`);
    this.addSql(`create index change_log_changed_at on change_log (changed_at)`);
    this.addSql(`
      create table watch_history (
        id bigint generated always as identity primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        title_id bigint not null references title (id) on delete cascade,
        episode_id bigint references episode (id) on delete cascade,
        season_number integer,
        episode_number integer,
        watched_at timestamptz not null,
        runtime_minutes integer,
        source text not null check (source in ('api', 'sync', 'playback')),
        client_id text,
        created_at timestamptz not null default now(),
        constraint watch_history_episode_numbers check ((episode_id is null) = (episode_number is null))
      )`);
    this.addSql(`create index watch_history_user_time on watch_history (user_id, watched_at desc, id desc)`);
    this.addSql(`create index watch_history_user_item on watch_history (user_id, title_id, episode_id, watched_at)`);
    this.addSql(`
      create table user_rating (
        id bigint generated always as identity primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        title_id bigint not null references title (id) on delete cascade,
        scope text not null check (scope in ('title', 'series', 'season', 'episode')),
        season_number integer,
        episode_number integer,
        rating integer not null check (rating between 1 and 10),
        rated_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint user_rating_target unique nulls not distinct (user_id, title_id, scope, season_number, episode_number)
      )`);
    this.addSql(`create index user_rating_user_time on user_rating (user_id, updated_at desc, id desc)`);
    // The title detail's community rating: every user's whole-title rating of one title.
    this.addSql(`create index user_rating_title on user_rating (title_id) where season_number is null and episode_number is null`);
    // Favourite flag and show status of one title for one user (a row exists while either is set).
    // `id` is the wire id of favourite and status items; `show_status_at` is when the status last
    // changed (a paused show resumes automatically only on a watch logged after it was paused).
    this.addSql(`
      create table user_title_state (
        id bigint generated always as identity unique,
        user_id uuid not null references app_user (id) on delete cascade,
        title_id bigint not null references title (id) on delete cascade,
        is_favourite boolean not null default false,
        favourited_at timestamptz,
        show_status text check (show_status in ('planned', 'watching', 'paused', 'completed', 'dropped')),
        show_status_set_by text check (show_status_set_by in ('user', 'auto')),
        show_status_at timestamptz,
        updated_at timestamptz not null default now(),
        primary key (user_id, title_id),
        constraint user_title_state_favourite_time check (is_favourite = (favourited_at is not null)),
        constraint user_title_state_status_time check ((show_status is null) = (show_status_at is null))
      )`);
    this.addSql(`create index user_title_state_favourites on user_title_state (user_id, favourited_at desc, id desc) where is_favourite`);
    this.addSql(`create index user_title_state_statuses on user_title_state (user_id, show_status_at desc, id desc) where show_status is not null`);
  }

  override down(): void {
    this.addSql(`drop table user_title_state`);
    this.addSql(`drop table user_rating`);
    this.addSql(`drop table watch_history`);
    this.addSql(`drop table change_log`);
  }
}
