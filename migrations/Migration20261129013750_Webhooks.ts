// Outbound webhooks: apps' subscriptions and the log of delivery attempts, and the change log in feed
// order (xid, id) for every subscription to read from its own position.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261129013750_Webhooks extends Migration {

  override name = 'Migration20261129013750_Webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_subscription" ("id" bigint generated always as identity not null primary key, "client_id" text not null, "url" text not null, "kinds" text[] not null, "secret" text not null, "previous_secret" text null, "previous_secret_until" timestamptz null, "status" text not null default 'active', "paused_reason" text null, "paused_at" timestamptz null, "cursor_xid" xid8 not null, "cursor_change_id" bigint not null, "delivered_ahead" text[] not null default '{}', "failures" int not null default 0, "failing_since" timestamptz null, "next_attempt_at" timestamptz not null default now(), "last_attempt_at" timestamptz null, "last_success_at" timestamptz null, "last_status" int null, "last_error" text null, "claim" uuid null, "lease_until" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`);
    this.addSql(`create index "webhook_subscription_client" on "webhook_subscription" ("client_id", "id");`);
    this.addSql(`create index "webhook_subscription_due" on "webhook_subscription" ("next_attempt_at") where status = 'active';`);

    this.addSql(`create table "webhook_delivery" ("id" bigint generated always as identity not null primary key, "subscription_id" bigint not null, "message_id" text not null, "type" text not null, "user_id" uuid null, "attempt" int not null, "status" int null, "error" text null, "duration_ms" int not null, "at" timestamptz not null default now());`);
    this.addSql(`create index "webhook_delivery_subscription" on "webhook_delivery" ("subscription_id", "id");`);

    this.addSql(`create index "change_log_position" on "change_log" ("xid", "id");`);

    this.addSql(`alter table "webhook_subscription" add constraint "webhook_subscription_client_id_fkey" foreign key ("client_id") references "app" ("client_id") on update no action on delete cascade;`);
    this.addSql(`alter table "webhook_subscription" add constraint "webhook_subscription_status_check" check ("status" in ('active', 'paused'));`);

    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_subscription_id_fkey" foreign key ("subscription_id") references "webhook_subscription" ("id") on update no action on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
    this.addSql(`drop table if exists "webhook_subscription" cascade;`);
    this.addSql(`drop index "change_log_position";`);
  }

}
