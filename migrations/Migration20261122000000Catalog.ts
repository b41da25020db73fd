// The catalog: titles (movies and shows; anime is a category of either), seasons and episodes.
// A title's identity is (type, movie_db_id): movies and shows are numbered in separate spaces.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000Catalog extends Migration {
  override up(): void {
    this.addSql(`create extension if not exists pg_trgm`);
    this.addSql(`
      create table title (
        id bigint generated always as identity primary key,
        type text not null check (type in ('movie', 'show')),
        movie_db_id integer not null check (movie_db_id >= 1),
        category text not null check (category in ('movie', 'show', 'anime')),
        is_anime boolean not null default false,
        name text not null check (name <> ''),
        original_name text not null default '',
        tagline text not null default '',
        year integer not null,
        release_date date,
        overview text not null default '',
        poster_path text not null default '',
        backdrop_path text not null default '',
        popularity double precision not null default 0,
        community_rating double precision not null default 0 check (community_rating between 0 and 10),
        vote_count integer not null default 0,
        genres text[] not null default '{}',
        original_language text not null default '',
        status text not null default '',
        age_rating text not null default '',
        runtime_minutes integer,
        episode_run_time_minutes integer,
        seasons_count integer,
        episodes_count integer,
        poster_color text not null default '',
        poster_color_is_dark boolean not null default true,
        tv_db_id integer,
        film_db_id text,
        anime_db_id integer,
        external_ids jsonb not null default '{}',
        source text not null,
        search_name text generated always as (lower(name)) stored,
        search_vector tsvector generated always as (to_tsvector('simple', name || ' ' || original_name)) stored,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint title_type_movie_db_id_unique unique (type, movie_db_id)
      )`);
    this.addSql(`create index title_search_name_trgm on title using gin (search_name gin_trgm_ops)`);
    this.addSql(`create index title_search_vector on title using gin (search_vector)`);
    this.addSql(`create index title_popularity on title (popularity desc, id)`);
    this.addSql(`create index title_rating on title (community_rating desc, id)`);
    this.addSql(`create index title_release_date on title (release_date desc nulls last, id)`);
    this.addSql(`create index title_name on title (search_name, id)`);
    this.addSql(`create index title_genres on title using gin (genres)`);
    this.addSql(`create index title_film_db_id on title (film_db_id) where film_db_id is not null`);
    this.addSql(`create index title_tv_db_id on title (tv_db_id) where tv_db_id is not null`);
    this.addSql(`create index title_anime_db_id on title (anime_db_id) where anime_db_id is not null`);
    this.addSql(`
      create table season (
        id bigint generated always as identity primary key,
        title_id bigint not null references title (id) on delete cascade,
        season_number integer not null check (season_number >= 0),
        name text not null,
        overview text not null default '',
        air_date date,
        episode_count integer not null default 0,
        poster_path text not null default '',
        constraint season_title_number_unique unique (title_id, season_number)
      )`);
    this.addSql(`
      create table episode (
        id bigint generated always as identity primary key,
        title_id bigint not null references title (id) on delete cascade,
        season_number integer not null check (season_number >= 0),
        episode_number integer not null check (episode_number >= 1),
        absolute_number integer,
        name text not null,
        overview text not null default '',
        air_date date,
        runtime_minutes integer,
        still_path text not null default '',
        constraint episode_title_number_unique unique (title_id, season_number, episode_number)
      )`);
    this.addSql(`create index episode_air_date on episode (air_date, title_id)`);
  }

  override down(): void {
    this.addSql(`drop table episode`);
    this.addSql(`drop table season`);
    this.addSql(`drop table title`);
  }
}
