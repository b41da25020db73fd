// Trophies (src/core/trophies): the trophies each user has earned, and the trophy job's position in
// change_log. The catalog of trophies lives in code (src/core/trophies/catalog.ts).
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122072000Trophies extends Migration {
  override up(): void {
    // Earned once: the primary key makes every later award of the same trophy a no-op. `trophy_id` is
    // the catalog's stable id (not a foreign key: the catalog is code).
    this.addSql(`
      create table user_trophy (
        user_id uuid not null references app_user (id) on delete cascade,
        trophy_id text not null,
        earned_at timestamptz not null default now(),
        primary key (user_id, trophy_id)
      )`);
    // One row: the last change_log position (xid, id) the trophy job has evaluated.
    this.addSql(`
      create table trophy_cursor (
        singleton boolean primary key default true check (singleton),
        xid xid8 not null,
        change_id bigint not null,
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`insert into trophy_cursor (xid, change_id) values ('0'::xid8, 0)`);
    // The job reads every user's changes of these resources in (xid, id) order. Partial: playback,
    // collection and the other resources (frequent playback progress above all) add no index entry.
    this.addSql(`create index change_log_trophy_follow on change_log (xid, id) where resource in ('history', 'ratings', 'lists', 'list_items')`);
  }

  override down(): void {
    this.addSql(`drop index change_log_trophy_follow`);
    this.addSql(`drop table trophy_cursor`);
    this.addSql(`drop table user_trophy`);
  }
}
