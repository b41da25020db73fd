// Each test file gets its own database: a new PostgreSQL database on the server in services mode
// (DATABASE_URL set), a new PGlite directory in embedded mode, copied from the migrated one the run's
// global setup made (test/global-setup.ts). Runs never see each other's rows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate, openDatabase, type Database } from '../../src/core/db/orm.ts';

export type TestDatabase = { databaseUrl: string | undefined; dataDir: string; cleanup(): Promise<void> };

export const servicesMode = Boolean(process.env.DATABASE_URL);

export async function freshDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-'));
  const base = process.env.DATABASE_URL;
  if (!base) {
    const template = inject('embeddedTemplate');
    if (template) fs.cpSync(template, dataDir, { recursive: true });
    return { databaseUrl: undefined, dataDir, cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `mts_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir,
    cleanup: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh database, opened and migrated, for tests of core code without the HTTP service. */
export async function migratedDatabase(): Promise<{ db: Database; release(): Promise<void> }> {
  const target = await freshDatabase();
  const db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  await migrate(db.orm);
  return {
    db,
    release: async () => {
      await db.close();
      await target.cleanup();
    },
  };
}
