// The figures kept on write (src/core/schema/figures.ts), then filled from the rows of existing users.
//
// The fill is SQL in this migration, in its transaction, rather than rebuildUserFigures run per user after
// the migrations: the tables appear already filled, so no instance ever writes a user's figures on top of
// empty ones (a write's deltas on an unfilled user would look filled and stay wrong), and one set-based
// pass over history and ratings costs far less than a transaction per user. It is a frozen copy of the
// rules of src/core/figures/ as they are when the tables are made (entryMinutes' minutes, UTC days and
// ISO weeks, the weekly challenges of profile/challenges.ts, the completion windows, the list counts);
// test/figures-migration-fill.test.ts holds it equal to rebuildUserFigures. A later change of those rules
// leaves this file as it is and moves existing figures itself (a migration of its own, or stats:rebuild).
import { Migration } from '@mikro-orm/migrations';

/** An entry's minutes (entryMinutes): as logged, else the episode's, else the title's. */
const MINUTES = `coalesce(w.runtime_minutes, e.runtime_minutes, t.runtime_minutes, t.episode_run_time_minutes, 0)`;

/** The first air date of a regular episode of the row's show that the row's user has (or has not) watched. */
const firstAired = (watched: boolean) => `(
  select min(coalesce(e.air_date, '-infinity'::date)) from episode e
  where e.title_id = f.title_id and e.season_number > 0
    and ${watched ? '' : 'not '}exists (select 1 from watch_history w where w.user_id = f.user_id and w.title_id = e.title_id and w.episode_id = e.id))`;

/**
 * One ISO week's challenges and XP (profile/challenges.ts: 5 episodes for 50 XP, 2 movies for 40, 3 ratings
 * for 30, 4 active days for 60; 10 XP a movie, 3 an episode, 5 a rating), counting only its entries
 * (watch_) or only its ratings (rating_); counting everything is their sum.
 */
const WATCH_CHALLENGES = `((episodes >= 5)::int + (movies >= 2)::int + (active_days >= 4)::int)`;
const WATCH_XP = `(10 * movies + 3 * episodes + 50 * (episodes >= 5)::int + 40 * (movies >= 2)::int + 60 * (active_days >= 4)::int)`;
const RATING_CHALLENGES = `(ratings >= 3)::int`;
const RATING_XP = `(5 * ratings + 30 * (ratings >= 3)::int)`;

/** Every existing user's figures from their rows, into the empty tables. */
const FILL_USER_FIGURES: readonly string[] = [
  // Per title: entries, minutes, different episodes; then each show's completion window.
  `insert into user_title_figures (user_id, title_id, watches, minutes, episodes)
    select w.user_id, w.title_id, count(*)::int, sum(${MINUTES})::int, count(distinct w.episode_id)::int
    from watch_history w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id
    group by w.user_id, w.title_id;`,
  `update user_title_figures f set completed_from = ${firstAired(true)}, completed_until = ${firstAired(false)};`,
  // Per UTC day: entries (movie and episode ones apart), minutes, and ratings given (by rated_at).
  `insert into user_day_figures (user_id, day, watches, movies, episodes, minutes, ratings)
    select user_id, day, sum(watches)::int, sum(movies)::int, sum(episodes)::int, sum(minutes)::int, sum(ratings)::int
    from (
      select w.user_id, (w.watched_at at time zone 'UTC')::date as day, 1 as watches, (t.type = 'movie')::int as movies,
        (t.type = 'show')::int as episodes, ${MINUTES} as minutes, 0 as ratings
      from watch_history w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id
      union all
      select r.user_id, (r.rated_at at time zone 'UTC')::date, 0, 0, 0, 0, 1 from user_rating r
    ) x
    group by user_id, day;`,
  // Per UTC month and genre: entries of titles of that genre.
  `insert into user_month_genre (user_id, month, genre, watches)
    select w.user_id, date_trunc('month', w.watched_at at time zone 'UTC')::date, g.genre, count(*)::int
    from watch_history w join title t on t.id = w.title_id cross join lateral unnest(t.genres) as g(genre)
    group by 1, 2, 3;`,
  // Runs of consecutive days with an entry: a day minus its rank is the same all through a run.
  `insert into user_streak_run (user_id, first_day, last_day, days)
    select user_id, min(day), max(day), count(*)::int
    from (select user_id, day, day - (row_number() over (partition by user_id order by day))::int as run from user_day_figures where watches > 0) d
    group by user_id, run;`,
  // Totals: from the title rows, the ratings held, and every ISO week's challenges and XP. A user without
  // history or ratings gets no row (all 0), as the figures leave them.
  `insert into user_figures (user_id, watches, minutes, movies, shows, episodes, anime_titles, ratings, challenges, xp, watch_challenges, watch_xp, rating_challenges, rating_xp)
    select u.user_id, coalesce(tf.watches, 0), coalesce(tf.minutes, 0), coalesce(tf.movies, 0), coalesce(tf.shows, 0), coalesce(tf.episodes, 0),
      coalesce(tf.anime_titles, 0), coalesce(r.n, 0), coalesce(wk.watch_challenges + wk.rating_challenges, 0), coalesce(wk.watch_xp + wk.rating_xp, 0),
      coalesce(wk.watch_challenges, 0), coalesce(wk.watch_xp, 0), coalesce(wk.rating_challenges, 0), coalesce(wk.rating_xp, 0)
    from (select user_id from user_title_figures union select user_id from user_rating) u
    left join (
      select f.user_id, sum(f.watches)::int as watches, sum(f.minutes)::int as minutes, sum(f.episodes)::int as episodes,
        (count(*) filter (where t.type = 'movie'))::int as movies, (count(*) filter (where t.type = 'show'))::int as shows,
        (count(*) filter (where t.is_anime))::int as anime_titles
      from user_title_figures f join title t on t.id = f.title_id group by f.user_id
    ) tf on tf.user_id = u.user_id
    left join (select user_id, count(*)::int as n from user_rating group by user_id) r on r.user_id = u.user_id
    left join (
      select user_id, sum(${WATCH_CHALLENGES})::int as watch_challenges, sum(${WATCH_XP})::int as watch_xp,
        sum(${RATING_CHALLENGES})::int as rating_challenges, sum(${RATING_XP})::int as rating_xp
      from (
        select user_id, day - (extract(isodow from day)::int - 1) as week, sum(movies) as movies, sum(episodes) as episodes,
          sum(ratings) as ratings, count(*) filter (where watches > 0) as active_days
        from user_day_figures group by 1, 2
      ) weeks
      group by user_id
    ) wk on wk.user_id = u.user_id;`,
  // The counts of the ratings, favourites and statuses lists by the filters of their pages.
  `insert into user_library_count (user_id, list, category, scope, status, n)
    select r.user_id, 'ratings', t.category, r.scope, '', count(*)::int
    from user_rating r join title t on t.id = r.title_id group by r.user_id, t.category, r.scope
    union all
    select s.user_id, 'favourites', t.category, case t.type when 'movie' then 'title' else 'series' end, '', count(*)::int
    from user_title_state s join title t on t.id = s.title_id where s.is_favourite group by s.user_id, t.category, t.type
    union all
    select s.user_id, 'statuses', t.category, case t.type when 'movie' then 'title' else 'series' end, s.show_status, count(*)::int
    from user_title_state s join title t on t.id = s.title_id where s.show_status is not null group by s.user_id, t.category, t.type, s.show_status;`,
];

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

    for (const statement of FILL_USER_FIGURES) this.addSql(statement);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "user_rating_user_rated";`);
    for (const t of ['user_day_figures', 'user_figures', 'user_library_count', 'user_month_genre', 'user_streak_run', 'user_title_figures']) this.addSql(`drop table if exists "${t}" cascade;`);
  }
}
