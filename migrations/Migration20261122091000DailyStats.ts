// The statistics roll-up: community figures per UTC day, written by the `stats-rollup` job and read by
// GET /api/public/v1/community/overview (`daily`). One row per day, recomputed while the day can still
// change (today and yesterday) and filled in for missing days of the last 30.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122091000DailyStats extends Migration {
  override up(): void {
    this.addSql(`
      create table community_daily_stats (
        day date primary key,
        active_users int not null check (active_users >= 0),
        watches int not null check (watches >= 0),
        new_users int not null check (new_users >= 0),
        ratings int not null check (ratings >= 0),
        computed_at timestamptz not null
      )`);
  }

  override down(): void {
    this.addSql(`drop table community_daily_stats`);
  }
}
