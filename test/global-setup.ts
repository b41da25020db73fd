// Before a run in services mode: drop test databases left behind by an earlier, interrupted run.
import pg from 'pg';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export default async function setup() {
  const base = process.env.DATABASE_URL;
  if (!base) return;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  const { rows } = await c.query<{ datname: string }>(`select datname from pg_database where datname like 'mts_test_%'`);
  for (const r of rows) {
    const pid = Number(r.datname.split('_')[2]);
    if (!processAlive(pid)) await c.query(`drop database if exists "${r.datname}" with (force)`);
  }
  await c.end();
}
