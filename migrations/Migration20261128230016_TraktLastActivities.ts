// A user's latest changes of one resource, newest first, read by an index scan of the user's own entries
// (the Trakt-compatible facade's last activities).
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128230016_TraktLastActivities extends Migration {

  override name = 'Migration20261128230016_TraktLastActivities';

  override up(): void | Promise<void> {
    this.addSql(`create index "change_log_user_resource" on "change_log" ("user_id", "resource", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "change_log_user_resource";`);
  }

}
