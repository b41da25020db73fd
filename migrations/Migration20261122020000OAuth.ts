// OAuth: the provider's artifacts (codes, tokens, grants, sessions, interactions, device codes) and the
// keys it signs cookies and tokens with. Artifact ids and user codes are stored as SHA-256 digests:
// the database never holds a usable token.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122020000OAuth extends Migration {
  override up(): void {
    this.addSql(`
      create table oauth_artifact (
        id text primary key,
        model text not null,
        payload jsonb not null,
        grant_id text,
        user_code text,
        uid text,
        expires_at timestamptz,
        consumed_at timestamptz,
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create index oauth_artifact_grant on oauth_artifact (grant_id) where grant_id is not null`);
    this.addSql(`create unique index oauth_artifact_user_code on oauth_artifact (user_code) where user_code is not null`);
    this.addSql(`create index oauth_artifact_uid on oauth_artifact (uid) where uid is not null`);
    this.addSql(`create index oauth_artifact_expires on oauth_artifact (expires_at) where expires_at is not null`);
    // Connected apps: one row per grant, for the user's list (first and last use) and its revocation.
    this.addSql(`
      create table app_grant (
        grant_id text primary key,
        grant_key text not null,
        user_id uuid not null references app_user (id) on delete cascade,
        client_id text not null references app (client_id) on delete cascade,
        scopes text[] not null,
        first_used_at timestamptz not null default now(),
        last_used_at timestamptz not null default now()
      )`);
    this.addSql(`create index app_grant_user on app_grant (user_id, client_id)`);
    this.addSql(`
      create table oauth_key (
        kind text primary key,
        material jsonb not null,
        created_at timestamptz not null default now()
      )`);
  }

  override down(): void {
    this.addSql(`drop table oauth_key`);
    this.addSql(`drop table app_grant`);
    this.addSql(`drop table oauth_artifact`);
  }
}
