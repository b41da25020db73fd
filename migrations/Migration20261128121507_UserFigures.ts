// The figures kept on write (src/core/schema/figures.ts), then filled from the rows of existing users.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128121507_UserFigures extends Migration {

  override name = 'Migration20261128121507_UserFigures';

  override up(): void | Promise<void> {
    this.addSql(`create table "user_day_figures" ("user_id" uuid not null, "day" date not null, "watches" int not null, "movies" int not null, "episodes" int not null, "minutes" int not null, "ratings" int not null, primary key ("user_id", "day"));`);

    this.addSql(`create table "user_figures" ("user_id" uuid not null, "watches" int not null default 0, "minutes" int not null default 0, "movies" int not null default 0, "shows" int not null default 0, "episodes" int not null default 0, "anime_titles" int not null default 0, "ratings" int not null default 0, "challenges" int not null default 0, "xp" int not null default 0, "watch_challenges" int not null default 0, "watch_xp" int not null default 0, "rating_challenges" int not null default 0, "rating_xp" int not null default 0, primary key ("user_id"));`);

    this.addSql(`create table "user_library_count" ("user_id" uuid not null, "list" text not null, "category" text not null, "scope" text not null, "status" text not null, "n" int not null, primary key ("user_id", "list", "category", "scope", "status"));`);

    this.addSql(`create table "user_month_genre" ("user_id" uuid not null, "month" date not null, "genre" text not null, "watches" int not null, primary key ("user_id", "month", "genre"));`);

    this.addSql(`create table "user_streak_run" ("user_id" uuid not null, "first_day" date not null, "last_day" date not null, "days" int not null, primary key ("user_id", "first_day"));`);
    this.addSql(`create index "user_streak_run_longest" on "user_streak_run" ("user_id", "days" DESC);`);

    this.addSql(`create table "user_title_figures" ("user_id" uuid not null, "title_id" bigint not null, "watches" int not null, "minutes" int not null, "episodes" int not null, "completed_from" date null, "completed_until" date null, primary key ("user_id", "title_id"));`);
    this.addSql(`create index "user_title_figures_completed" on "user_title_figures" ("user_id", "completed_from") where completed_from is not null;`);

    this.addSql(`create index "user_rating_user_rated" on "user_rating" ("user_id", "rated_at");`);

    this.addSql(`alter table "user_day_figures" add constraint "user_day_figures_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);

    this.addSql(`alter table "user_figures" add constraint "user_figures_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);

    this.addSql(`alter table "user_library_count" add constraint "user_library_count_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);
    this.addSql(`alter table "user_library_count" add constraint "user_library_count_list_check" check ("list" in ('ratings', 'favourites', 'statuses'));`);
    this.addSql(`alter table "user_library_count" add constraint "user_library_count_category_check" check ("category" in ('movie', 'show', 'anime'));`);
    this.addSql(`alter table "user_library_count" add constraint "user_library_count_scope_check" check ("scope" in ('title', 'series', 'season', 'episode'));`);

    this.addSql(`alter table "user_month_genre" add constraint "user_month_genre_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);

    this.addSql(`alter table "user_streak_run" add constraint "user_streak_run_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);

    this.addSql(`alter table "user_title_figures" add constraint "user_title_figures_user_id_fkey" foreign key ("user_id") references "app_user" ("id") on update no action on delete cascade;`);
    this.addSql(`alter table "user_title_figures" add constraint "user_title_figures_title_id_fkey" foreign key ("title_id") references "title" ("id") on update no action on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "user_rating_user_rated";`);
    for (const t of ['user_day_figures', 'user_figures', 'user_library_count', 'user_month_genre', 'user_streak_run', 'user_title_figures']) this.addSql(`drop table if exists "${t}" cascade;`);
  }
}
