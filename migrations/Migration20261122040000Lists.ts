// Lists: custom lists, the one watchlist per user, dynamic lists (items computed from filters by the
// list-sync job), external lists (items imported from a list file), featured lists; their items,
// collaborators (invited, then accepted) and likes. Item counts per category are kept on the list row
// and recomputed from the items in the same transaction as every item write (src/core/lists/items.ts),
// so they always agree with the items.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122040000Lists extends Migration {
  override up(): void {
    this.addSql(`
      create table list (
        id bigint generated always as identity primary key,
        owner_id uuid not null references app_user (id) on delete cascade,
        name text not null check (char_length(name) between 1 and 100),
        description text not null default '',
        is_public boolean not null default false,
        is_watchlist boolean not null default false,
        is_featured boolean not null default false,
        is_collaborative boolean not null default false,
        kind text not null default 'plain' check (kind in ('plain', 'dynamic', 'external')),
        dynamic_filters jsonb,
        sync_state text check (sync_state in ('pending', 'syncing', 'synced', 'failed')),
        sync_started_at timestamptz,
        last_synced_at timestamptz,
        last_full_synced_at timestamptz,
        last_sync_error text,
        external_source text,
        external_url text,
        item_count integer not null default 0,
        movie_count integer not null default 0,
        show_count integer not null default 0,
        anime_count integer not null default 0,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint list_dynamic_has_filters check ((kind = 'dynamic') = (dynamic_filters is not null)),
        constraint list_external_has_source check ((kind = 'external') = (external_source is not null and external_url is not null)),
        constraint list_synced_kinds_have_state check ((kind = 'plain') = (sync_state is null)),
        constraint list_watchlist_is_plain check (not is_watchlist or kind = 'plain')
      )`);
    this.addSql(`create index list_owner on list (owner_id, id)`);
    this.addSql(`create unique index list_one_watchlist on list (owner_id) where is_watchlist`);
    this.addSql(`create index list_featured on list (id) where is_featured and is_public`);
    this.addSql(`create index list_sync_due on list (last_synced_at nulls first, id) where kind <> 'plain'`);
    this.addSql(`
      create table list_item (
        id bigint generated always as identity primary key,
        list_id bigint not null references list (id) on delete cascade,
        title_id bigint not null references title (id) on delete cascade,
        position bigint not null,
        added_at timestamptz not null default now(),
        added_by uuid references app_user (id) on delete set null,
        constraint list_item_title_unique unique (list_id, title_id)
      )`);
    this.addSql(`create index list_item_order on list_item (list_id, position, id)`);
    this.addSql(`create index list_item_title on list_item (title_id, list_id)`);
    this.addSql(`
      create table list_member (
        list_id bigint not null references list (id) on delete cascade,
        user_id uuid not null references app_user (id) on delete cascade,
        invited_at timestamptz not null default now(),
        accepted_at timestamptz,
        primary key (list_id, user_id)
      )`);
    this.addSql(`create index list_member_user on list_member (user_id, list_id)`);
    this.addSql(`
      create table list_like (
        list_id bigint not null references list (id) on delete cascade,
        user_id uuid not null references app_user (id) on delete cascade,
        liked_at timestamptz not null default now(),
        primary key (list_id, user_id)
      )`);
  }

  override down(): void {
    this.addSql(`drop table list_like`);
    this.addSql(`drop table list_member`);
    this.addSql(`drop table list_item`);
    this.addSql(`drop table list`);
  }
}
