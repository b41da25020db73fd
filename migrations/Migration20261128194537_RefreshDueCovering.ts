// The catalog refresh's walk (title_refresh_due) reads the due rule's columns from the index alone: type,
// movie_db_id and status ride along (an index-only scan, not a heap fetch per title walked), and
// synthetic titles, never refreshed, are left out. On a demo-sized catalog (52k titles) the refresh's
// pick reads about 600 buffers instead of 27,000.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128194537_RefreshDueCovering extends Migration {
  override name = 'Migration20261128194537_RefreshDueCovering';

  override up(): void | Promise<void> {
    this.addSql(`drop index "title_refresh_due";`);
    this.addSql(`create index "title_refresh_due" on "title" ("refreshed_at" nulls FIRST, "id") include ("type", "movie_db_id", "status") where source <> 'synthetic'::text;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "title_refresh_due";`);
    this.addSql(`create index "title_refresh_due" on "title" ("refreshed_at" nulls FIRST, "id");`);
  }
}
