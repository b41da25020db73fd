// Background jobs (src/jobs): one row per run of a job, in both modes (in-process timers in embedded
// mode, pg-boss in services mode). It is what `jobs:status` shows next to pg-boss's own queue state, and
// what shows that a fleet ran each tick once (`tick` is the queue's slot). Also the trending roll-up the
// `trending` job writes. pg-boss keeps its own tables
// in schema `pgboss`, created by pg-boss itself at start-up, not here.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122090000Jobs extends Migration {
  override up(): void {
    // `instance`: which process ran it (host:pid:random). `tick`: the pg-boss slot the run belongs to
    // (null in-process); `attempt`: 0 for a first try, n for the n-th retry. Rows older than 7 days are
    // deleted by the runner as it writes.
    this.addSql(`
      create table job_run (
        id bigint generated always as identity primary key,
        job text not null,
        instance text not null,
        queue_job_id uuid,
        tick timestamptz,
        attempt int not null default 0,
        started_at timestamptz not null,
        finished_at timestamptz not null,
        outcome text not null check (outcome in ('ok', 'failed')),
        summary jsonb,
        error text
      )`);
    this.addSql(`create index job_run_job_started on job_run (job, started_at desc)`);
    // The trending roll-up (src/core/catalog/trending-rollup.ts, job `trending`): watchers and watches
    // of each title watched in the last 7 days, replaced whole by each run. Trending reads it first,
    // then fills up by catalog popularity.
    this.addSql(`
      create table title_trending (
        title_id bigint primary key references title (id) on delete cascade,
        watchers int not null,
        watches int not null,
        computed_at timestamptz not null
      )`);
  }

  override down(): void {
    this.addSql(`drop table if exists title_trending`);
    this.addSql(`drop table if exists job_run`);
  }
}
