// Titles named by name + year (importers' files, bulk sync without ids) match across the ways services
// write a name: case, accents, punctuation, "&" for "and", a leading "The". title_match_name() is the one
// rule, used on both sides: the stored match_name column (indexed) and the reference's name at query time
// (catalog/resolve-repository.ts). Immutable, so it may define a stored column; language sql with only
// built-ins, so PGlite and PostgreSQL give the same answer.
import { Migration } from '@mikro-orm/migrations';

/** Dashes, quotes, ellipses, bullets and CJK punctuation, beside ASCII's [:punct:], split words too. */
const UNICODE_PUNCTUATION = '‐‑‒–—―…«»‹›“”„‟‚·•¡¿。、・：；！？（）「」『』【】〜';

export class Migration20261124140000_TitleMatchName extends Migration {
  override name = 'Migration20261124140000_TitleMatchName';

  override up(): void {
    // Steps, inner to outer: lower case; accents off (NFD, then the combining marks removed); letters
    // with no decomposition spelled plainly; apostrophes and dots dropped ("Schindler's" = "Schindlers",
    // "S.W.A.T." = "SWAT"); "&" read as "and"; every other run of punctuation and space one space;
    // a leading "the " dropped. A name that is all punctuation keeps its lower-cased self.
    this.addSql(`
      create function title_match_name(name text) returns text language sql immutable strict parallel safe as $$
        select coalesce(nullif(
          regexp_replace(
            btrim(regexp_replace(
              replace(
                replace(replace(replace(
                  translate(regexp_replace(normalize(lower(name), NFD), '[\\u0300-\\u036f]', '', 'g'), 'øđłħı''’ʼ\`´.', 'odlhi'),
                'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'),
              '&', ' and '),
            '[[:punct:][:space:]${UNICODE_PUNCTUATION}]+', ' ', 'g')),
          '^the ', ''),
        ''), lower(name))
      $$`);
    this.addSql(`alter table "title" add "match_name" text generated always as (title_match_name(name)) stored null;`);
    this.addSql(`create index "title_match_name" on "title" ("match_name", "id");`);
  }

  override down(): void {
    this.addSql(`drop index "title_match_name";`);
    this.addSql(`alter table "title" drop column "match_name";`);
    this.addSql(`drop function title_match_name(text);`);
  }
}
