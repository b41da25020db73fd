// A ticket remembers the stored key of the access token that asked for it (token_key), so the stream it
// opens is re-checked against that token and ends when the token is revoked (rest/stream-watch.ts).
// Tickets live a minute and cannot be given a key afterwards: the ones outstanding are dropped (their
// clients ask for a new ticket, as for an expired one). Written by hand.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128090000_StreamTicketTokenKey extends Migration {
  override name = 'Migration20261128090000_StreamTicketTokenKey';

  override up(): void {
    this.addSql(`delete from "stream_ticket";`);
    this.addSql(`alter table "stream_ticket" add "token_key" text not null;`);
  }

  override down(): void {
    this.addSql(`alter table "stream_ticket" drop column "token_key";`);
  }
}
