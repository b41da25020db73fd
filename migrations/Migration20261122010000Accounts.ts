// Accounts and OAuth client apps. The rules on usernames are enforced in code (src/core/accounts) and
// again here, so a row written by any other path still obeys them.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122010000Accounts extends Migration {
  override up(): void {
    this.addSql(`
      create table app_user (
        id uuid primary key default gen_random_uuid(),
        username text not null constraint app_user_username_format check (username ~ '^[A-Za-z0-9_.-]{3,32}$'),
        display_name text not null,
        avatar_url text null,
        password_hash text not null,
        created_at timestamptz not null default now()
      )`);
    // Usernames are unique regardless of case: "Alice" and "alice" are one name.
    this.addSql(`create unique index app_user_username_lower_unique on app_user (lower(username))`);
    this.addSql(`
      create table app (
        client_id text primary key,
        name text not null,
        redirect_uris text[] not null,
        allowed_scopes text[] not null,
        confidential boolean not null,
        client_secret_hash text null,
        official boolean not null default false,
        active boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        secret_rotated_at timestamptz null,
        -- A confidential app always has a secret; a public one never does.
        constraint app_secret_matches_type check (confidential = (client_secret_hash is not null))
      )`);
  }

  override down(): void {
    this.addSql(`drop table app`);
    this.addSql(`drop table app_user`);
  }
}
