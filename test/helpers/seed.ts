// A small real catalog for tests of user data (the movie fixture's titles and a few synthetic shows, in
// a second or two, not the demo import), and users holding tokens with the scopes a test names.
import path from 'node:path';
import { expect } from 'vitest';
import { importCatalog } from '../../src/core/catalog/import/index.ts';
import { MoviesDatasetSource } from '../../src/core/catalog/import/movies-dataset.ts';
import { SyntheticTvSource, SYNTHETIC_START_ID } from '../../src/core/catalog/import/synthetic-tv.ts';
import type { TestApp } from './app.ts';
import { call, type Answer } from './http.ts';
import { makeApp, makeUser } from './oauth.ts';
import { issueToken } from './tokens.ts';

const FIXTURE_MOVIES = path.resolve(import.meta.dirname, '../fixtures/movies_metadata.sample.csv');
/** Movies in the fixture (movie_db_id): Spirited Away, and others. */
export const SPIRITED_AWAY = 129;
/** The first synthetic show's movie_db_id; shows are SYNTHETIC_START_ID .. + count - 1. */
export const FIRST_SHOW = SYNTHETIC_START_ID;

/** Imports the fixture movies and `shows` synthetic shows (seasons and episodes, some airing in the future). */
export async function seedCatalog(app: TestApp, opts: { shows?: number; epoch?: Date } = {}): Promise<void> {
  await importCatalog(app.db.orm.em.fork(), [
    new MoviesDatasetSource({ file: FIXTURE_MOVIES }),
    new SyntheticTvSource({ count: opts.shows ?? 5, ...(opts.epoch ? { epoch: opts.epoch } : {}) }),
  ]);
}

export type Member = { userId: string; username: string; token: string; clientId: string };

/** A new user and an app holding a token for them with exactly `scopes`. */
export async function member(app: TestApp, username: string, scopes: string[], opts: { official?: boolean } = {}): Promise<Member> {
  const user = await makeUser(app, username);
  const client = await makeApp(app, { official: opts.official ?? false });
  const token = await issueToken(app, { userId: user.id, clientId: client.client_id, scope: scopes.join(' ') });
  return { userId: user.id, username, token, clientId: client.client_id };
}

/** Another token for the same user and app, with other scopes. */
export function tokenWith(app: TestApp, m: Member, scopes: string[]): Promise<string> {
  return issueToken(app, { userId: m.userId, clientId: m.clientId, scope: scopes.join(' ') });
}

/** The body of an answer that must be 200 (else the test fails showing the body). */
export async function ok(answer: Promise<Pick<Answer, 'status' | 'body'>>): Promise<Record<string, unknown>> {
  const res = await answer;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** A platform API call as `token` (path relative to /api/platform/v1); `body` is always JSON-encoded. */
export function platform(app: Pick<TestApp, 'url'>, token: string | null, method: string, pathAndQuery: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return call(app, `/api/platform/v1${pathAndQuery}`, { method, token, body: body === undefined ? undefined : JSON.stringify(body), headers });
}
