// Idempotency records of bulk sync. (Filled in by the module that owns these tables.)
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122050000Sync extends Migration {
  override up(): void {}

  override down(): void {}
}
