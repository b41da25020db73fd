// Sessions of the account pages (/account), kept on the server so that signing out ends them: the
// browser holds a random token, the table its SHA-256 digest (never the token itself). Expired rows are
// deleted by the oauth-sweep job.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261123090000AccountSessions extends Migration {
  override up(): void {
    this.addSql(`
      create table account_session (
        id text primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null
      )`);
    this.addSql(`create index account_session_expires on account_session (expires_at)`);
  }

  override down(): void {
    this.addSql(`drop table if exists account_session`);
  }
}
