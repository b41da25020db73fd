// Trakt's statistics split entries and minutes between movies and episodes: user_figures keeps the split
// on write (src/core/figures/titles.ts moves it with the per-title rows), so the read is the totals row
// instead of a grouped join over every title the user watched. Existing users are filled here, in the
// migration's transaction, from their per-title rows (whose sums are `watches` and `minutes`), so the
// split always adds up to the totals it splits; test/figures-migration-fill.test.ts holds the fill equal
// to rebuildUserFigures.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261129013435_SplitByTitleType extends Migration {

  override name = 'Migration20261129013435_SplitByTitleType';

  override up(): void | Promise<void> {
    this.addSql(`alter table "user_figures" add "movie_watches" int not null default 0, add "movie_minutes" int not null default 0, add "episode_watches" int not null default 0, add "episode_minutes" int not null default 0;`);
    this.addSql(`update user_figures u set movie_watches = x.movie_watches, movie_minutes = x.movie_minutes, episode_watches = x.episode_watches, episode_minutes = x.episode_minutes
      from (
        select f.user_id,
          coalesce(sum(f.watches) filter (where t.type = 'movie'), 0)::int as movie_watches,
          coalesce(sum(f.minutes) filter (where t.type = 'movie'), 0)::int as movie_minutes,
          coalesce(sum(f.watches) filter (where t.type = 'show'), 0)::int as episode_watches,
          coalesce(sum(f.minutes) filter (where t.type = 'show'), 0)::int as episode_minutes
        from user_title_figures f join title t on t.id = f.title_id
        group by f.user_id
      ) x
      where x.user_id = u.user_id;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "user_figures" drop column "movie_watches", drop column "movie_minutes", drop column "episode_watches", drop column "episode_minutes";`);
  }

}
