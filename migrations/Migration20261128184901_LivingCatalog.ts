// The living catalog: catalog_fetch records the metadata provider's work per title (one fetch at a time
// across instances, and when to try a failed one again); title.refreshed_at orders the refresh of the
// titles people follow, watch or list (title_refresh_due: the due rule's columns ride along, so the walk is
// an index-only scan, and synthetic titles, never refreshed, are left out; on a demo-sized catalog of 52k
// titles the pick reads about 600 buffers instead of 27,000), and user_title_figures_title answers "does
// anyone watch this title" from one row per user and title.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128184901_LivingCatalog extends Migration {
  override name = 'Migration20261128184901_LivingCatalog';

  override up(): void | Promise<void> {
    this.addSql(`create table "catalog_fetch" ("type" text not null, "movie_db_id" int not null, "state" text not null, "attempts" int not null default 1, "claimed_until" timestamptz null, "retry_at" timestamptz null, "last_error" text null, "updated_at" timestamptz not null default now(), primary key ("type", "movie_db_id"));`);

    this.addSql(`alter table "title" add "refreshed_at" timestamptz null;`);
    this.addSql(`create index "title_refresh_due" on "title" ("refreshed_at" nulls FIRST, "id") include ("type", "movie_db_id", "status") where source <> 'synthetic'::text;`);

    this.addSql(`create index "user_title_figures_title" on "user_title_figures" ("title_id");`);

    this.addSql(`alter table "catalog_fetch" add constraint "catalog_fetch_type_check" check ("type" in ('movie', 'show'));`);
    this.addSql(`alter table "catalog_fetch" add constraint "catalog_fetch_state_check" check ("state" in ('running', 'missing', 'invalid', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "catalog_fetch" cascade;`);
    this.addSql(`drop index "title_refresh_due";`);
    this.addSql(`alter table "title" drop column "refreshed_at";`);
    this.addSql(`drop index "user_title_figures_title";`);
  }
}
