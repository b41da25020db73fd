// The account pages no longer keep sessions of their own: a browser's session is the authorization
// server's (oauth_artifact, model Session), for the account pages and for approving apps alike. The
// account_session table goes; its rows (one-day sessions) end with it, and their users sign in again.
// Written by hand.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128100000_OneBrowserSession extends Migration {
  override name = 'Migration20261128100000_OneBrowserSession';

  override up(): void {
    this.addSql(`drop table if exists "account_session";`);
  }

  override down(): void {
    this.addSql(`
      create table "account_session" (
        "id" text not null,
        "user_id" uuid not null,
        "created_at" timestamptz not null default now(),
        "expires_at" timestamptz not null,
        constraint "account_session_pkey" primary key ("id")
      );`);
    this.addSql(`create index "account_session_expires" on "account_session" ("expires_at");`);
    this.addSql(`alter table "account_session" add constraint "account_session_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);
  }
}
