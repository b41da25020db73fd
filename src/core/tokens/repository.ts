// The OAuth tables (oauth_artifact, oauth_key) as the authorization server (src/oauth) uses them: its
// adapter's storage, its keys, the device flow's polling times and the resource server's token check.
// Ids and user codes arrive here already digested; this module stores what it is given.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpressionBuilder, Kysely } from 'kysely';
import { offline } from '../db/compile.ts';
import { jsonBuildObject } from 'kysely/helpers/postgres';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { compiledOnce } from '../db/compiled-once.ts';
import { jsonb } from '../db/json.ts';
import { prepared } from '../db/sql.ts';
import type { ArtifactPayload } from '../schema/tokens.ts';

/**
 * `now() + <seconds>` (the database's clock): make_interval(years, months, weeks, days, hours, mins, secs),
 * typed Date for the builder's `+` (timestamptz + interval).
 */
const secondsFromNow = <TB extends keyof Tables>(eb: ExpressionBuilder<Tables, TB>, seconds: number) =>
  eb(eb.fn<Date>('now'), '+', eb.fn<Date>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.val(seconds)]));

/** Unexpired: no expiry, or one still ahead. */
const live = (eb: ExpressionBuilder<Tables, 'oauth_artifact'>) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', eb.fn<Date>('now'))]);

// -- The adapter's storage (src/oauth/adapter.ts)

export type NewArtifact = {
  id: string;
  model: string;
  payload: ArtifactPayload;
  grantId: string | null;
  userCode: string | null;
  uid: string | null;
  /** Seconds from now; null: never expires. */
  expiresIn: number | null;
};

export async function upsertArtifact(em: EntityManager, a: NewArtifact): Promise<void> {
  await db(em)
    .insertInto('oauth_artifact')
    .values((eb) => ({
      id: a.id,
      model: a.model,
      payload: jsonb(a.payload),
      grant_id: a.grantId,
      user_code: a.userCode,
      uid: a.uid,
      expires_at: a.expiresIn === null ? null : secondsFromNow(eb, a.expiresIn),
    }))
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        payload: eb.ref('excluded.payload'),
        grant_id: eb.ref('excluded.grant_id'),
        user_code: eb.ref('excluded.user_code'),
        uid: eb.ref('excluded.uid'),
        expires_at: eb.ref('excluded.expires_at'),
      })),
    )
    .execute();
}

/** An unexpired artifact by stored key. */
export function liveArtifact(em: EntityManager, id: string) {
  return db(em).selectFrom('oauth_artifact').select(['payload', 'consumed_at']).where('id', '=', id).where(live).executeTakeFirst();
}

/** An unexpired artifact of the model by one of its lookup columns (user code digest, or uid). */
export function liveArtifactBy(em: EntityManager, column: 'user_code' | 'uid', value: string, model: string) {
  return db(em)
    .selectFrom('oauth_artifact')
    .select(['id', 'payload', 'consumed_at'])
    .where(column, '=', value)
    .where('model', '=', model)
    .where(live)
    .executeTakeFirst();
}

/** Compare-and-set: true when this call marked the artifact consumed, false when it already was (or is gone). */
export async function markConsumed(em: EntityManager, id: string): Promise<boolean> {
  const row = await db(em)
    .updateTable('oauth_artifact')
    .set((eb) => ({ consumed_at: eb.fn<Date>('now') }))
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function artifactGrantId(em: EntityManager, id: string): Promise<string | null> {
  const row = await db(em).selectFrom('oauth_artifact').select('grant_id').where('id', '=', id).executeTakeFirst();
  return row?.grant_id ?? null;
}

/** Deletes the grant's codes and tokens and, by `grantKey` (its stored key), the grant itself. */
export async function deleteGrantAndArtifacts(em: EntityManager, grantId: string, grantKey: string): Promise<void> {
  await db(em)
    .deleteFrom('oauth_artifact')
    .where((eb) => eb.or([eb('grant_id', '=', grantId), eb('id', '=', grantKey)]))
    .execute();
}

export async function deleteArtifact(em: EntityManager, id: string): Promise<void> {
  await db(em).deleteFrom('oauth_artifact').where('id', '=', id).execute();
}

export async function deleteArtifactsOfGrant(em: EntityManager, grantId: string): Promise<void> {
  await db(em).deleteFrom('oauth_artifact').where('grant_id', '=', grantId).execute();
}

/** Deletes the authorization server's browser sessions (model `Session`) signed in as the user. */
export async function deleteProviderSessionsOfUser(em: EntityManager, userId: string): Promise<void> {
  await db(em)
    .deleteFrom('oauth_artifact')
    .where('model', '=', 'Session')
    .where((eb) => eb(eb.ref('payload', '->>').key('accountId'), '=', userId))
    .execute();
}

/** How many expired artifacts were deleted. */
export async function deleteExpiredArtifacts(em: EntityManager): Promise<number> {
  const { numDeletedRows } = await db(em)
    .deleteFrom('oauth_artifact')
    .where((eb) => eb('expires_at', '<', eb.fn<Date>('now')))
    .executeTakeFirstOrThrow();
  return Number(numDeletedRows);
}

// -- The provider's keys (src/oauth/keys.ts)

/** Stores the key material unless the kind has some already; returns what is stored. */
export async function keepKey(em: EntityManager, kind: string, material: unknown): Promise<unknown> {
  await db(em).insertInto('oauth_key').values({ kind, material: jsonb(material) }).onConflict((oc) => oc.column('kind').doNothing()).execute();
  const row = await db(em).selectFrom('oauth_key').select('material').where('kind', '=', kind).executeTakeFirstOrThrow();
  return row.material;
}

// -- The device flow's polling times (src/oauth/device-polling.ts)

/**
 * Records a poll of the device code whose poll row is `id`, in one statement: a first poll stores
 * `{ at: now, interval, tooSoon: false }`; a later one is too soon when it comes less than the stored
 * interval after the stored `at`, and then adds `slowDown` to the interval. Returns the payload after.
 */
export async function recordPoll(em: EntityManager, p: { id: string; model: string; interval: number; slowDown: number; graceSeconds: number; lifetimeSeconds: number }) {
  const row = await db(em)
    .insertInto('oauth_artifact')
    .values((eb) => ({
      id: p.id,
      model: p.model,
      payload: jsonBuildObject({ at: eb.fn<number>('date_part', [eb.val('epoch'), eb.fn('clock_timestamp')]), interval: eb.lit(p.interval), tooSoon: eb.lit(false) }),
      expires_at: secondsFromNow(eb, p.lifetimeSeconds),
    }))
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        payload: eb
          .selectFrom(
            eb
              // One reading of the clock for the poll (clock_timestamp(): the time now, after any wait for the row).
              .selectFrom(eb.fn<{ c: Date }>('clock_timestamp').as('c'))
              .select((eb) => {
                const now = eb.fn<number>('date_part', [eb.val('epoch'), eb.ref('c.c')]);
                const interval = eb.cast<number>(eb.ref('oauth_artifact.payload', '->>').key('interval'), 'integer');
                const at = eb.cast<number>(eb.ref('oauth_artifact.payload', '->>').key('at'), 'float8');
                return [now.as('now'), interval.as('interval'), eb(eb(now, '-', at), '<', eb(interval, '-', eb.val(p.graceSeconds))).as('soon')];
              })
              .as('t'),
          )
          .select((eb) =>
            jsonBuildObject({
              at: eb.ref('t.now'),
              interval: eb(eb.ref('t.interval'), '+', eb.case().when(eb.ref('t.soon')).then(eb.lit(p.slowDown)).else(eb.lit(0)).end()),
              tooSoon: eb.ref('t.soon'),
            }).as('payload'),
          ),
      })),
    )
    .returning('payload')
    .executeTakeFirstOrThrow();
  return row.payload;
}

// -- The resource server's token check (src/oauth/bearer.ts)


/**
 * What verifies a token: its unexpired row, its app (by the payload's clientId) and whether its grant's
 * artifact stands. `builder`: `offline` for the hot single-token statement (compiled once), or a
 * connection's for the event streams' batched re-check.
 */
function tokenChecks(builder: Kysely<Tables>) {
  return builder
    .selectFrom('oauth_artifact as t')
    .leftJoin('app as a', (join) => join.on((eb) => eb('a.client_id', '=', eb.ref('t.payload', '->>').key('clientId').$castTo<string>())))
    .select((eb) => [
      't.payload',
      'a.client_id',
      'a.active',
      'a.official',
      eb
        .exists(
          eb
            .selectFrom('oauth_artifact as g')
            .select(eb.lit(1).as('one'))
            // The grant's key as the adapter stores it (artifactKey('Grant', id): SHA-256, base64url), computed here.
            .where((eb) => {
              const grantId = eb.ref('t.payload', '->>').key('grantId').$castTo<string>();
              const digest = eb.fn('sha256', [eb.fn('convert_to', [eb(eb.val('Grant:'), '||', eb.parens(grantId)), eb.val('UTF8')])]);
              const base64url = eb.fn('translate', [eb.fn('encode', [digest, eb.val('base64')]), eb.val('+/'), eb.val('-_')]);
              return eb('g.id', '=', eb.fn<string>('rtrim', [base64url, eb.val('=')]));
            })
            .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', eb.fn<Date>('now'))])),
        )
        .as('grant_stands'),
    ])
    .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', eb.fn<Date>('now'))]));
}

/** The one statement that verifies a token (`key`: its stored key). */
export function tokenQuery(key: string) {
  return tokenChecks(offline).where('t.id', '=', key);
}

const tokenStatementOnce = compiledOnce(tokenQuery, (key, value) => value(key));

/**
 * The token's row (see tokenQuery), or undefined; a named statement (hot: every platform request), its
 * text built once (compiled-once.ts).
 */
export async function tokenRow(em: EntityManager, key: string) {
  const [row] = await prepared(em, tokenStatementOnce(key));
  return row;
}

/**
 * The rows of the given tokens (stored keys) that are still unexpired, each with what tokenRow has and a
 * mark of its user's password (an md5 of the stored hash: it changes whenever the password is set). One
 * statement for every open event stream of an instance; a token missing from the answer is gone.
 */
export function tokenRowsWithPasswordMark(em: EntityManager, keys: readonly string[]) {
  return tokenChecks(db(em))
    .select((eb) => [
      't.id as key',
      eb
        .selectFrom('app_user as u')
        .select((eb) => eb.fn<string>('md5', ['u.password_hash']).as('mark'))
        // The accountId of an access token is the user's id (src/oauth/interactions.ts).
        .where('u.id', '=', eb.cast<string>(eb.ref('t.payload', '->>').key('accountId'), 'uuid'))
        .as('password_mark'),
    ])
    .where((eb) => eb('t.id', '=', eb.fn.any(eb.val([...keys]))))
    .execute();
}
