// The provider's storage in PostgreSQL (oidc-provider adapter interface). Ids and user codes are kept
// as SHA-256 digests and put back into the payload on the way out, so a database dump holds no usable
// token. `consume` is compare-and-set: of several parallel redemptions of one code, exactly one wins,
// and the losers revoke the grant as any reuse does.
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import { query } from '../core/db/sql.ts';

const digest = (value: string) => createHash('sha256').update(value).digest('base64url');

/**
 * Artifacts found by user code or uid come back with `#<stored key>` as their id, since the real id
 * cannot be recovered from its digest; saving or consuming them under that id reaches the same row.
 */
const FOUND_BY_KEY = '#';

/** The stored key of an artifact (e.g. a Grant, for connected apps). */
export const artifactKey = (model: string, id: string) => digest(`${model}:${id}`);

type Row = { payload: AdapterPayload; consumed_at: Date | null };

/** Which payload fields hold secrets that must not be stored as given. */
function stripSecrets(payload: AdapterPayload): AdapterPayload {
  const { jti: _jti, userCode: _userCode, ...rest } = payload as AdapterPayload & { jti?: string };
  return rest;
}

export type FindClient = (clientId: string) => Promise<Record<string, unknown> | undefined>;

export function createAdapterClass(orm: MikroORM, findClient: FindClient) {
  const em = () => orm.em.fork();
  return class PostgresAdapter implements Adapter {
    readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    private key(id: string): string {
      return id.startsWith(FOUND_BY_KEY) ? id.slice(1) : artifactKey(this.model, id);
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      await query(em(), {
        text: `insert into oauth_artifact (id, model, payload, grant_id, user_code, uid, expires_at)
               values ($1, $2, $3, $4, $5, $6, case when $7::int is null then null else now() + make_interval(secs => $7::int) end)
               on conflict (id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
                 user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        params: [
          this.key(id),
          this.model,
          JSON.stringify(stripSecrets(payload)),
          payload.grantId ?? null,
          payload.userCode ? digest(payload.userCode) : null,
          payload.uid ?? null,
          expiresIn ?? null,
        ],
      });
    }

    private restore(row: Row | undefined, id: string, userCode?: string): AdapterPayload | undefined {
      if (!row) return undefined;
      const payload: AdapterPayload = { ...row.payload, jti: id } as AdapterPayload;
      if (userCode) payload.userCode = userCode;
      if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
      return payload;
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      // Clients are the apps of the `app` table, not provider artifacts.
      if (this.model === 'Client') return (await findClient(id)) as AdapterPayload | undefined;
      const [row] = await query<Row>(em(), {
        text: `select payload, consumed_at from oauth_artifact where id = $1 and (expires_at is null or expires_at > now())`,
        params: [this.key(id)],
      });
      return this.restore(row, id);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const [row] = await query<Row & { id: string }>(em(), {
        text: `select id, payload, consumed_at from oauth_artifact
               where user_code = $1 and model = $2 and (expires_at is null or expires_at > now())`,
        params: [digest(userCode), this.model],
      });
      return row ? this.restore(row, `${FOUND_BY_KEY}${row.id}`, userCode) : undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const [row] = await query<Row & { id: string }>(em(), {
        text: `select id, payload, consumed_at from oauth_artifact
               where uid = $1 and model = $2 and (expires_at is null or expires_at > now())`,
        params: [uid, this.model],
      });
      return row ? this.restore(row, `${FOUND_BY_KEY}${row.id}`) : undefined;
    }

    async consume(id: string): Promise<void> {
      const key = this.key(id);
      const rows = await query(em(), {
        text: `update oauth_artifact set consumed_at = now() where id = $1 and consumed_at is null returning id`,
        params: [key],
      });
      if (rows.length > 0) return;
      // A parallel request consumed it first: this is a reuse like one that comes later, which the
      // provider answers by revoking the grant. Without this, 10 parallel redemptions of a stolen code
      // or refresh token left the winner's tokens standing whenever every loser got this far.
      const [row] = await query<{ grant_id: string | null }>(em(), { text: `select grant_id from oauth_artifact where id = $1`, params: [key] });
      if (row?.grant_id) {
        await query(em(), {
          text: `delete from oauth_artifact where grant_id = $1 or id = $2`,
          params: [row.grant_id, artifactKey('Grant', row.grant_id)],
        });
      }
      throw new errors.InvalidGrant(`${this.model} already used`);
    }

    async destroy(id: string): Promise<void> {
      await query(em(), { text: `delete from oauth_artifact where id = $1`, params: [this.key(id)] });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await query(em(), { text: `delete from oauth_artifact where grant_id = $1`, params: [grantId] });
    }
  };
}
