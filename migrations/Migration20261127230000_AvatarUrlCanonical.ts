// Avatar URLs were stored as sent (any string an https URL parser accepted, quotes and spaces included)
// and served as stored on the public profile, list collaborators, GET /me and the export. They are now
// stored in their canonical form (checkAvatarUrl in src/core/accounts/rules.ts); this brings the values
// already stored to the same rule, so no surface has to canonicalise on read. A stored value the rule
// now refuses (a user name or password in it, or too long once percent-encoded) is removed: the user
// sets a new one. Written by hand (no entity changes); one pass over the users with an avatar, by id.
// The rule is copied here as it stood when this migration was written, not imported: a migration is
// history, and a later change of the rule must not change what this step did to a database.
import { Migration } from '@mikro-orm/migrations';

const BATCH = 1000;
const AVATAR_URL_MAX = 2048;

/** The value the rule stores for `stored`, or null when it refuses it. */
function canonicalOrNull(stored: string): string | null {
  if (!URL.canParse(stored)) return null;
  const url = new URL(stored);
  if (url.protocol !== 'https:' || url.username || url.password) return null;
  const canonical = url.href.replaceAll("'", '%27');
  return canonical.length > AVATAR_URL_MAX ? null : canonical;
}

export class Migration20261127230000_AvatarUrlCanonical extends Migration {
  override name = 'Migration20261127230000_AvatarUrlCanonical';

  override async up(): Promise<void> {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = (await this.execute('select id, avatar_url from app_user where avatar_url is not null and id > ? order by id limit ?', [after, BATCH])) as {
        id: string;
        avatar_url: string;
      }[];
      for (const r of rows) {
        const next = canonicalOrNull(r.avatar_url);
        if (next !== r.avatar_url) await this.execute('update app_user set avatar_url = ? where id = ?', [next, r.id]);
      }
      if (rows.length < BATCH) return;
      after = rows.at(-1)!.id;
    }
  }

  override down(): void {
    // The values as sent are gone; the canonical ones are valid under the old rule too.
  }
}
