// Notifications (src/core/notifications): each user's inbox and their per-kind preferences.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122071000Notifications extends Migration {
  override up(): void {
    // One row per notification. `dedupe_key` (per user) makes a producer's retry or a job's re-run a
    // no-op: the unique constraint treats nulls as distinct, so notifications without a key never clash.
    this.addSql(`
      create table notification (
        id bigint generated always as identity primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        kind text not null check (kind in ('list_invitation', 'list_liked', 'new_episode', 'trophy_earned')),
        title text not null,
        body text not null,
        data jsonb not null default '{}'::jsonb,
        dedupe_key text,
        read_at timestamptz,
        created_at timestamptz not null default now(),
        constraint notification_user_dedupe unique (user_id, dedupe_key)
      )`);
    // The inbox reads newest first by (created_at, id); the unread count reads the unread rows only.
    this.addSql(`create index notification_user_order on notification (user_id, created_at desc, id desc)`);
    this.addSql(`create index notification_user_unread on notification (user_id) where read_at is null`);
    // Preferences per kind; a kind without a row is on for every channel (the default).
    this.addSql(`
      create table notification_preference (
        user_id uuid not null references app_user (id) on delete cascade,
        kind text not null check (kind in ('list_invitation', 'list_liked', 'new_episode', 'trophy_earned')),
        in_app boolean not null default true,
        push boolean not null default true,
        updated_at timestamptz not null default now(),
        primary key (user_id, kind)
      )`);
    // The new-episode job finds the followers of the shows with newly aired episodes (by title).
    this.addSql(`create index user_title_state_followers on user_title_state (title_id, user_id) where show_status is not null or is_favourite`);
  }

  override down(): void {
    this.addSql(`drop index user_title_state_followers`);
    this.addSql(`drop table notification_preference`);
    this.addSql(`drop table notification`);
  }
}
