// Playback sessions, Continue Watching and the live event log. (Filled in by the module that owns these tables.)
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122060000Playback extends Migration {
  override up(): void {}

  override down(): void {}
}
