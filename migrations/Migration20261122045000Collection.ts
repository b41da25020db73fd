// The user's physical and digital collection: one row per owned copy of a title in one format (and, for
// a show, optionally one season). The same title may be owned in several formats and seasons; the same
// (title, format, season) is one item, so adding it again finds the row already there.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122045000Collection extends Migration {
  override up(): void {
    this.addSql(`
      create table collection_item (
        id bigint generated always as identity primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        title_id bigint not null references title (id) on delete cascade,
        format text not null check (format in ('dvd', 'bluray', 'uhd_bluray', 'digital', 'vhs', 'hd_dvd', 'laserdisc')),
        season integer check (season >= 1),
        notes text not null default '' check (char_length(notes) <= 500),
        added_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint collection_item_copy unique nulls not distinct (user_id, title_id, format, season)
      )`);
    // Pages are newest first by id. The title detail's lookup by (user, title) uses the unique index.
    this.addSql(`create index collection_item_user_page on collection_item (user_id, id desc)`);
  }

  override down(): void {
    this.addSql(`drop table collection_item`);
  }
}
