// The user's physical and digital collection. (Filled in by the module that owns these tables.)
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122045000Collection extends Migration {
  override up(): void {}

  override down(): void {}
}
