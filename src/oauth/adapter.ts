// The provider's storage in PostgreSQL (oidc-provider adapter interface). Ids and user codes are kept
// as SHA-256 digests and put back into the payload on the way out, so a database dump holds no usable
// token. `consume` is compare-and-set: of several parallel redemptions of one code, exactly one wins,
// and the losers revoke the grant as any reuse does.
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import {
  artifactGrantId,
  deleteArtifact,
  deleteArtifactsOfGrant,
  deleteGrantAndArtifacts,
  liveArtifact,
  liveArtifactBy,
  markConsumed,
  upsertArtifact,
} from '../core/tokens/repository.ts';

const digest = (value: string) => createHash('sha256').update(value).digest('base64url');

/**
 * Artifacts found by user code or uid come back with `#<stored key>` as their id, since the real id
 * cannot be recovered from its digest; saving or consuming them under that id reaches the same row.
 */
const FOUND_BY_KEY = '#';

/** The stored key of an artifact (e.g. a Grant, for connected apps). */
export const artifactKey = (model: string, id: string) => digest(`${model}:${id}`);

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
      await upsertArtifact(em(), {
        id: this.key(id),
        model: this.model,
        payload: stripSecrets(payload),
        grantId: payload.grantId ?? null,
        userCode: payload.userCode ? digest(payload.userCode) : null,
        uid: payload.uid ?? null,
        expiresIn: expiresIn ?? null,
      });
    }

    private restore(row: Awaited<ReturnType<typeof liveArtifact>>, id: string, userCode?: string): AdapterPayload | undefined {
      if (!row) return undefined;
      const payload: AdapterPayload = { ...row.payload, jti: id } as AdapterPayload;
      if (userCode) payload.userCode = userCode;
      if (row.consumed_at) payload.consumed = Math.floor(row.consumed_at.getTime() / 1000);
      return payload;
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      // Clients are the apps of the `app` table, not provider artifacts.
      if (this.model === 'Client') return (await findClient(id)) as AdapterPayload | undefined;
      return this.restore(await liveArtifact(em(), this.key(id)), id);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const row = await liveArtifactBy(em(), 'user_code', digest(userCode), this.model);
      return row ? this.restore(row, `${FOUND_BY_KEY}${row.id}`, userCode) : undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const row = await liveArtifactBy(em(), 'uid', uid, this.model);
      return row ? this.restore(row, `${FOUND_BY_KEY}${row.id}`) : undefined;
    }

    async consume(id: string): Promise<void> {
      const key = this.key(id);
      if (await markConsumed(em(), key)) return;
      // A parallel request consumed it first: this is a reuse like one that comes later, which the
      // provider answers by revoking the grant. Without this, 10 parallel redemptions of a stolen code
      // or refresh token left the winner's tokens standing whenever every loser got this far.
      const grantId = await artifactGrantId(em(), key);
      if (grantId) await deleteGrantAndArtifacts(em(), grantId, artifactKey('Grant', grantId));
      throw new errors.InvalidGrant(`${this.model} already used`);
    }

    async destroy(id: string): Promise<void> {
      await deleteArtifact(em(), this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await deleteArtifactsOfGrant(em(), grantId);
    }
  };
}
