// Playback sessions, Continue Watching and the live event log (src/core/playback, src/core/events).
// Clients' millisecond timestamps (`event_created_at`) are kept as given, as bigint, for ordering.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122060000Playback extends Migration {
  override up(): void {
    // One row per client playback session (`playback_session_id`): its state and the latest event applied,
    // so a delayed older event never overwrites a newer one. `scrobbled_at` dedups the history entry.
    this.addSql(`
      create table playback_session (
        user_id uuid not null references app_user (id) on delete cascade,
        session_key text not null,
        title_id bigint not null references title (id) on delete cascade,
        episode_id bigint references episode (id) on delete cascade,
        state text not null check (state in ('playing', 'paused', 'stopped', 'watched')),
        progress double precision,
        last_event_at bigint not null,
        scrobbled_at timestamptz,
        updated_at timestamptz not null default now(),
        primary key (user_id, session_key)
      )`);
    this.addSql(`create index playback_session_updated on playback_session (updated_at)`);
    // Continue Watching: one entry per user and title (a show's entry holds the episode in progress).
    // A removed entry (dismissed or watched) stays as a tombstone, with last_event_at moved past the
    // removal, so a delayed older event cannot bring it back; only newer playback does.
    this.addSql(`
      create table continue_watching (
        id bigint generated always as identity primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        title_id bigint not null references title (id) on delete cascade,
        episode_id bigint references episode (id) on delete cascade,
        season_number integer,
        episode_number integer,
        progress double precision not null check (progress > 0 and progress <= 1),
        position_seconds integer,
        duration_seconds integer,
        session_key text not null,
        last_event_at bigint not null,
        client_id text,
        updated_at timestamptz not null default now(),
        removed_at timestamptz,
        constraint continue_watching_user_title unique (user_id, title_id)
      )`);
    this.addSql(`create index continue_watching_user_order on continue_watching (user_id, updated_at desc, id desc) where removed_at is null`);
    this.addSql(`create index continue_watching_updated on continue_watching (updated_at)`);
    // Accepted events by client event_id (per user), with the answer given, for `deduped` replays.
    this.addSql(`
      create table playback_event_receipt (
        user_id uuid not null references app_user (id) on delete cascade,
        event_id text not null,
        response jsonb not null,
        received_at timestamptz not null default now(),
        primary key (user_id, event_id)
      )`);
    this.addSql(`create index playback_event_receipt_received on playback_event_receipt (received_at)`);
    // The server-sent events of each user, kept for the replay window (Last-Event-ID); id is the event id.
    this.addSql(`
      create table stream_event (
        id bigint generated always as identity primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        name text not null,
        data jsonb not null,
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create index stream_event_user on stream_event (user_id, id)`);
    this.addSql(`create index stream_event_created on stream_event (created_at)`);
    // Single-use tickets for EventSource clients that cannot send an Authorization header (SHA-256 only).
    this.addSql(`
      create table stream_ticket (
        ticket_hash text primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        client_id text not null,
        scopes text not null,
        official boolean not null,
        token_digest text not null,
        expires_at timestamptz not null,
        used_at timestamptz
      )`);
    this.addSql(`create index stream_ticket_expires on stream_ticket (expires_at)`);
  }

  override down(): void {
    this.addSql(`drop table stream_ticket`);
    this.addSql(`drop table stream_event`);
    this.addSql(`drop table playback_event_receipt`);
    this.addSql(`drop table continue_watching`);
    this.addSql(`drop table playback_session`);
  }
}
