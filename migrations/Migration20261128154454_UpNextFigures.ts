// Up next's figures kept per title (src/core/schema/figures.ts, user_title_figures): the different
// regular episodes watched, the latest watch, and the furthest regular episode watched; and the index
// its page reads. Existing rows are filled here, in the migration's transaction, from the user's entries
// of each title, with SQL of its own (a frozen copy of src/core/figures/'s rules as they are now), so no
// instance ever reads or writes these columns unfilled. test/figures-migration-fill.test.ts holds the
// fill equal to rebuildUserFigures.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128154454_UpNextFigures extends Migration {
  override name = 'Migration20261128154454_UpNextFigures';

  override up(): void {
    this.addSql(`alter table "user_title_figures" add "regular_episodes" int not null default 0, add "last_watched_at" timestamptz null, add "last_season" int null, add "last_episode" int null;`);
    this.addSql(`update user_title_figures f set regular_episodes = x.regular, last_watched_at = x.last_at
      from (
        select w.user_id, w.title_id, (count(distinct w.episode_id) filter (where e.season_number > 0))::int as regular, max(w.watched_at) as last_at
        from watch_history w left join episode e on e.id = w.episode_id
        group by w.user_id, w.title_id
      ) x
      where x.user_id = f.user_id and x.title_id = f.title_id;`);
    this.addSql(`update user_title_figures f set (last_season, last_episode) = (
        select e.season_number, e.episode_number from watch_history w join episode e on e.id = w.episode_id
        where w.user_id = f.user_id and w.title_id = f.title_id and e.season_number > 0
        order by e.season_number desc, e.episode_number desc limit 1);`);
    this.addSql(`alter table "user_title_figures" alter column "regular_episodes" drop default, alter column "last_watched_at" set not null;`);
    this.addSql(`create index "user_title_figures_up_next" on "user_title_figures" ("user_id", "last_watched_at" DESC, "title_id" DESC) where last_season is not null;`);
  }

  override down(): void {
    this.addSql(`drop index "user_title_figures_up_next";`);
    this.addSql(`alter table "user_title_figures" drop column "regular_episodes", drop column "last_watched_at", drop column "last_season", drop column "last_episode";`);
  }
}
