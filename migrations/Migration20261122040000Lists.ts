// Lists, list items, collaborators, likes and the collection. (Filled in by the module that owns these tables.)
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122040000Lists extends Migration {
  override up(): void {}

  override down(): void {}
}
