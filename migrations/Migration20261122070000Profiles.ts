// Profiles (bio, privacy), the user's app preferences, mobile push devices, and an index for the
// community overview (src/core/profiles, src/core/devices).
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122070000Profiles extends Migration {
  override up(): void {
    // Profiles are public by default, as on Trakt and Simkl; `private` hides the whole public profile.
    this.addSql(`alter table app_user add column bio text not null default '' constraint app_user_bio_length check (char_length(bio) <= 500)`);
    this.addSql(`alter table app_user add column profile_privacy text not null default 'public' constraint app_user_profile_privacy check (profile_privacy in ('public', 'private'))`);
    // One row per user once a preference is set; no row (or a null column) means the service default.
    this.addSql(`
      create table user_preferences (
        user_id uuid primary key references app_user (id) on delete cascade,
        region text check (region ~ '^[A-Z]{2}$'),
        language text check (char_length(language) between 2 and 35),
        hide_episode_titles boolean not null default false,
        hide_overviews boolean not null default false,
        hide_images boolean not null default false,
        hide_ratings boolean not null default false,
        watched_threshold double precision check (watched_threshold between 0.5 and 1),
        updated_at timestamptz not null default now()
      )`);
    // Push tokens are kept as given: sending a push needs them, and they are useless without the
    // provider credentials of the official app (docs/decisions.md). A token belongs to one registration.
    this.addSql(`
      create table push_device (
        id bigint generated always as identity primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        client_id text not null references app (client_id) on delete cascade,
        device_id text not null check (char_length(device_id) between 1 and 160),
        device_name text not null default '' check (char_length(device_name) <= 100),
        platform text not null check (platform in ('ios', 'android')),
        provider text not null check (provider in ('apns', 'fcm', 'expo')),
        environment text not null check (environment in ('development', 'production')),
        token text not null check (char_length(token) between 20 and 512),
        enabled boolean not null default true,
        last_seen_at timestamptz not null default now(),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint push_device_user_device unique (user_id, device_id),
        constraint push_device_token unique (token)
      )`);
    // The community overview reads the last 30 days of watches of everyone.
    this.addSql(`create index watch_history_watched_at on watch_history (watched_at) include (user_id, title_id)`);
  }

  override down(): void {
    this.addSql(`drop index watch_history_watched_at`);
    this.addSql(`drop table push_device`);
    this.addSql(`drop table user_preferences`);
    this.addSql(`alter table app_user drop column profile_privacy`);
    this.addSql(`alter table app_user drop column bio`);
  }
}
