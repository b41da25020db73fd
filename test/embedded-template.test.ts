// The embedded database's initialised cluster (core/db/embedded-template.ts): the install writes one for
// the installed PGlite, and a first start loads it instead of running initdb, ending with the same
// cluster initdb makes. Both ways are opened here, whatever the test mode.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbedded } from '../src/core/db/embedded.ts';
import { readTemplate, templateFile, writeTemplate } from '../src/core/db/embedded-template.ts';
import pg from 'pg';

const dirs: string[] = [];
const scratch = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-tpl-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** What a cluster holds: its databases, and its catalog's relations in the postgres database. */
async function clusterOf(dataDir: string, template: Blob | null) {
  const db = await openEmbedded(dataDir, { template });
  const client = new pg.Client({ host: db.socketDir, port: db.port, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    const databases = (await client.query<{ datname: string }>('select datname from pg_database order by datname')).rows.map((r) => r.datname);
    const relations = (await client.query<{ n: number }>('select count(*)::int as n from pg_class')).rows[0]!.n;
    const encoding = (await client.query<{ server_encoding: string }>('show server_encoding')).rows[0]!.server_encoding;
    return { databases, relations, encoding };
  } finally {
    await client.end();
    await db.close();
  }
}

describe('the embedded database template', () => {
  it('the install wrote one for the installed PGlite (package.json postinstall)', () => {
    expect(templateFile()).toMatch(/node_modules\/\.cache\/media-tracker\/pglite-\d+\.\d+\.\d+-cluster\.tar\.gz$/);
    expect(fs.existsSync(templateFile())).toBe(true);
    expect(readTemplate()!.size).toBeGreaterThan(1_000_000);
  });

  it('a new database loaded from it is the cluster initdb makes', async () => {
    const loaded = await clusterOf(scratch(), readTemplate()!);
    const initialised = await clusterOf(scratch(), null);
    expect(loaded).toEqual(initialised);
    expect(loaded.databases).toEqual(['postgres', 'template0', 'template1']);
  });

  it('an existing database is opened as it is, never replaced by the template', async () => {
    const dir = scratch();
    const db = await openEmbedded(dir, { template: null });
    const client = new pg.Client({ host: db.socketDir, port: db.port, user: 'postgres', database: 'postgres' });
    await client.connect();
    await client.query('create table kept (n int)');
    await client.end();
    await db.close();
    const again = await openEmbedded(dir);
    const c2 = new pg.Client({ host: again.socketDir, port: again.port, user: 'postgres', database: 'postgres' });
    await c2.connect();
    try {
      expect((await c2.query('select count(*)::int as n from kept')).rows).toEqual([{ n: 0 }]);
    } finally {
      await c2.end();
      await again.close();
    }
  });

  it('writes a template whole, under its name only once complete', async () => {
    const file = path.join(scratch(), 'cache', 'cluster.tar.gz');
    await writeTemplate(file);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['cluster.tar.gz']);
    // gzip's magic number.
    expect([...fs.readFileSync(file).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
  });
});
