// A list's preview posters are stored on the list (list.preview_posters) instead of being looked up on
// every read: every list shape carries them, and the title detail shows all of the user's lists, where
// finding the first posters of each list was more than half of the statement's work.
//
// list_preview_posters() is the one definition of a preview: the posters of the first items (in list
// order) that have one, at most 4. The service stores it whenever a list's items change (core/lists/
// items.ts refreshCounts); the trigger stores it when the catalog changes a title's poster, whatever
// makes that change (an import, the operator's SQL).
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122100000ListPreviews extends Migration {
  override up(): void {
    this.addSql(`
      create function list_preview_posters(list_id bigint) returns jsonb language sql stable as $$
        select coalesce(jsonb_agg(jsonb_build_object('posterPath', p.poster_path, 'movieDbId', p.movie_db_id, 'type', p.type)
            order by p.position, p.id), '[]'::jsonb)
        from (select t.poster_path, t.movie_db_id, t.type, li.position, li.id
          from list_item li join title t on t.id = li.title_id
          where li.list_id = list_preview_posters.list_id and t.poster_path <> ''
          order by li.position, li.id limit 4) p
      $$`);
    this.addSql(`alter table list add column preview_posters jsonb not null default '[]'::jsonb`);
    this.addSql(`update list l set preview_posters = list_preview_posters(l.id) where exists (select 1 from list_item li where li.list_id = l.id)`);
    this.addSql(`
      create function title_poster_changed() returns trigger language plpgsql as $$
      begin
        update list l set preview_posters = list_preview_posters(l.id)
        where l.id in (select li.list_id from list_item li where li.title_id = new.id);
        return null;
      end
      $$`);
    this.addSql(`
      create trigger title_poster_changed after update of poster_path on title
      for each row when (old.poster_path is distinct from new.poster_path)
      execute function title_poster_changed()`);
  }

  override down(): void {
    this.addSql(`drop trigger title_poster_changed on title`);
    this.addSql(`drop function title_poster_changed()`);
    this.addSql(`alter table list drop column preview_posters`);
    this.addSql(`drop function list_preview_posters(bigint)`);
  }
}
