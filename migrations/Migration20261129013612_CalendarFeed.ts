// The calendar feed: one row per user holding the SHA-256 digest of its capability token, found by
// that digest through the unique index.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261129013612_CalendarFeed extends Migration {

  override name = 'Migration20261129013612_CalendarFeed';

  override up(): void | Promise<void> {
    this.addSql(`create table "calendar_feed" ("user_id" uuid not null, "token_hash" text not null, "created_at" timestamptz not null default now(), "last_fetched_at" timestamptz null, primary key ("user_id"));`);
    this.addSql(`alter table "calendar_feed" add constraint "calendar_feed_token_hash" unique ("token_hash");`);

    this.addSql(`alter table "calendar_feed" add constraint "calendar_feed_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "calendar_feed" cascade;`);
  }

}
