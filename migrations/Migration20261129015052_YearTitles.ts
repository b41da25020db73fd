// The year in review's top titles: per user, UTC year and title, the entries and their minutes, kept on
// write by src/core/figures/ (year-titles.ts) and read top first through user_year_title_top. Existing
// users are filled here, in the migration's transaction, from their history (a frozen copy of the
// figures' rules as they are now: the UTC year of watched_at, an entry's minutes as logged, else the
// episode's, else the title's), before the index is built; test/figures-migration-fill.test.ts holds the
// fill equal to rebuildUserFigures.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261129015052_YearTitles extends Migration {

  override name = 'Migration20261129015052_YearTitles';

  override up(): void | Promise<void> {
    this.addSql(`create table "user_year_title" ("user_id" uuid not null, "year" int not null, "title_id" bigint not null, "watches" int not null, "minutes" int not null, primary key ("user_id", "year", "title_id"));`);
    this.addSql(`insert into user_year_title (user_id, year, title_id, watches, minutes)
      select w.user_id, extract(year from w.watched_at at time zone 'UTC')::int, w.title_id, count(*)::int,
        sum(coalesce(w.runtime_minutes, e.runtime_minutes, t.runtime_minutes, t.episode_run_time_minutes, 0))::int
      from watch_history w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id
      group by 1, 2, 3;`);
    this.addSql(`create index "user_year_title_top" on "user_year_title" ("user_id", "year", "watches" DESC, "minutes" DESC, "title_id");`);

    this.addSql(`alter table "user_year_title" add constraint "user_year_title_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);
    this.addSql(`alter table "user_year_title" add constraint "user_year_title_title_id_fkey" foreign key ("title_id") references "title" ("id") on update no action on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "user_year_title" cascade;`);
  }

}
