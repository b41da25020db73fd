// The write path of watches and changes (issue 7's throughput): change_log_changed_at is dropped.
// Its one reader was the retention sweep, which now walks the log in id order (src/core/sync/retention.ts);
// every write to the change log paid for its upkeep.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122081000SyncWrites extends Migration {
  override up(): void {
    this.addSql(`drop index if exists change_log_changed_at`);
  }

  override down(): void {
    this.addSql(`create index change_log_changed_at on change_log (changed_at)`);
  }
}
