import { Migration } from '@mikro-orm/migrations';

export class Migration20261129013946_MediaServerHooks extends Migration {

  override name = 'Migration20261129013946_MediaServerHooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "media_server_receiver" ("id" bigint generated always as identity not null primary key, "user_id" uuid not null, "label" text not null, "secret_hash" text not null, "account_filter" text null, "created_at" timestamptz not null default now(), "secret_created_at" timestamptz not null default now(), "last_event_at" timestamptz null, "plex_events" int not null default 0, "jellyfin_events" int not null default 0, "emby_events" int not null default 0);`);
    this.addSql(`alter table "media_server_receiver" add constraint "media_server_receiver_secret_hash" unique ("secret_hash");`);
    this.addSql(`create index "media_server_receiver_user" on "media_server_receiver" ("user_id", "id");`);

    this.addSql(`create table "media_server_play" ("receiver_id" bigint not null, "play_key" text not null, "session_id" text not null, "last_fingerprint" text not null, "ended" boolean not null default false, "watched" boolean not null default false, "updated_at" timestamptz not null default now(), primary key ("receiver_id", "play_key"));`);
    this.addSql(`create index "media_server_play_receiver_updated" on "media_server_play" ("receiver_id", "updated_at");`);

    this.addSql(`create table "media_server_deferred" ("id" bigint generated always as identity not null primary key, "receiver_id" bigint not null, "kind" text not null, "event" text not null, "media_type" text not null, "title" text not null, "year" int null, "season" int null, "episode" int null, "ids" jsonb not null, "received_at" timestamptz not null default now());`);
    this.addSql(`create index "media_server_deferred_receiver" on "media_server_deferred" ("receiver_id", "id");`);

    this.addSql(`alter table "media_server_receiver" add constraint "media_server_receiver_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);
    this.addSql(`alter table "media_server_receiver" add constraint "media_server_receiver_label_check" check ((char_length(label) >= 1) AND (char_length(label) <= 100));`);
    this.addSql(`alter table "media_server_receiver" add constraint "media_server_receiver_account_filter_check" check (char_length(account_filter) <= 200);`);

    this.addSql(`alter table "media_server_play" add constraint "media_server_play_receiver_id_fkey" foreign key ("receiver_id") references "media_server_receiver" ("id") on update no action on delete cascade;`);

    this.addSql(`alter table "media_server_deferred" add constraint "media_server_deferred_receiver_id_fkey" foreign key ("receiver_id") references "media_server_receiver" ("id") on update no action on delete cascade;`);
    this.addSql(`alter table "media_server_deferred" add constraint "media_server_deferred_kind_check" check ("kind" in ('plex', 'jellyfin', 'emby'));`);
    this.addSql(`alter table "media_server_deferred" add constraint "media_server_deferred_media_type_check" check ("media_type" in ('movie', 'episode'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "media_server_play" cascade;`);
    this.addSql(`drop table if exists "media_server_deferred" cascade;`);
    this.addSql(`drop table if exists "media_server_receiver" cascade;`);
  }

}
