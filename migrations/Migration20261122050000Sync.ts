// Bulk sync and the change feed's reads.
// sync_idempotency: the recorded result of each bulk write, per app, user, operation and key. It is
// written in the same transaction as the batch's writes, so a batch is applied and recorded together or
// not at all (a crash leaves the key unseen and the retry applies it once). Rows older than 24 hours
// are treated as unseen and deleted by a job.
// change_log_user_item: the latest row of each item (snapshot = the compacted log; retention keeps each
// live item's latest row).
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122050000Sync extends Migration {
  override up(): void {
    this.addSql(`
      create table sync_idempotency (
        user_id uuid not null references app_user (id) on delete cascade,
        client_id text not null,
        operation text not null,
        idempotency_key text not null,
        body_hash text not null,
        result jsonb not null,
        created_at timestamptz not null,
        primary key (user_id, client_id, operation, idempotency_key)
      )`);
    this.addSql(`create index sync_idempotency_created_at on sync_idempotency (created_at)`);
    this.addSql(`create index change_log_user_item on change_log (user_id, resource, resource_id, id desc)`);
  }

  override down(): void {
    this.addSql(`drop index change_log_user_item`);
    this.addSql(`drop table sync_idempotency`);
  }
}
