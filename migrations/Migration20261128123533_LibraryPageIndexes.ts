// The ratings page filtered by scope and the statuses page filtered by status read their rows from an
// index of that scope or status, in the page's order (user_rating_user_scope_time,
// user_title_state_status_lists), instead of reading every row of the list to filter it.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128123533_LibraryPageIndexes extends Migration {
  override name = 'Migration20261128123533_LibraryPageIndexes';

  override up(): void {
    this.addSql(`create index "user_rating_user_scope_time" on "user_rating" ("user_id", "scope", "updated_at" DESC, "id" DESC);`);
    this.addSql(`create index "user_title_state_status_lists" on "user_title_state" ("user_id", "show_status", "show_status_at" DESC, "id" DESC) where show_status IS NOT NULL;`);
  }

  override down(): void {
    this.addSql(`drop index "user_rating_user_scope_time";`);
    this.addSql(`drop index "user_title_state_status_lists";`);
  }
}
