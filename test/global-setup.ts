// Before the integration project's files run (vitest.config.ts). Services mode: drop test databases
// left behind by an earlier, interrupted run. Embedded mode: make one migrated PGlite directory that
// every test file's database starts as a copy of (test/helpers/db.ts): a new PGlite directory takes
// about ten seconds to initialise on this class of machine, a copy well under one, and the suite starts
// an app in almost every file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, openDatabase } from '../src/core/db/orm.ts';
import { processAlive } from './helpers/processes.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A closed, migrated PGlite data directory to copy (embedded mode only). */
    embeddedTemplate: string | undefined;
  }
}

async function embeddedTemplate(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-template-'));
  const db = await openDatabase({ databaseUrl: undefined, dataDir: dir });
  try {
    await migrate(db.orm);
  } finally {
    await db.close();
  }
  return dir;
}

export default async function setup(project: TestProject) {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const template = await embeddedTemplate();
    project.provide('embeddedTemplate', template);
    return () => fs.rmSync(template, { recursive: true, force: true });
  }
  project.provide('embeddedTemplate', undefined);
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  const { rows } = await c.query<{ datname: string }>(`select datname from pg_database where datname like 'mts_test_%'`);
  for (const r of rows) {
    const pid = Number(r.datname.split('_')[2]);
    if (!processAlive(pid)) await c.query(`drop database if exists "${r.datname}" with (force)`);
  }
  await c.end();
}
