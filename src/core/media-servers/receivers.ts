// A user's media-server receivers: create (the secret and its URLs are answered once), list, rename or
// refilter, rotate the secret, delete. Receivers are settings of the account, like push devices: they
// are not in the change feed (a third-party app reading the feed has no business with the user's
// capability URLs), and what they record is (history, Continue Watching).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { transaction } from '../db/transaction.ts';
import { ApiError, notFound } from '../errors.ts';
import * as repo from './repository.ts';
import {
  RECEIVERS_PER_USER, type CreateReceiver, type MediaServerReceiverItem, type MediaServerReceiverWithSecret, type UpdateReceiver,
} from './schemas.ts';
import { hookUrls, newSecret, secretHash } from './secret.ts';

type Deferred = Awaited<ReturnType<typeof repo.selectDeferred>>[number];

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

function present(r: repo.ReceiverRow, deferred: Deferred[]): MediaServerReceiverItem {
  return {
    id: Number(r.id),
    label: r.label,
    accountFilter: r.account_filter,
    createdAt: iso(r.created_at)!,
    secretCreatedAt: iso(r.secret_created_at)!,
    lastEventAt: iso(r.last_event_at),
    events: { plex: r.plex_events, jellyfin: r.jellyfin_events, emby: r.emby_events },
    deferred: deferred.map((d) => ({
      kind: d.kind,
      event: d.event,
      mediaType: d.media_type,
      title: d.title,
      year: d.year,
      season: d.season,
      episode: d.episode,
      movieDbId: d.ids.movieDbId ?? null,
      filmDbId: d.ids.filmDbId ?? null,
      tvDbId: d.ids.tvDbId ?? null,
      receivedAt: iso(d.received_at)!,
    })),
  };
}

const withSecret = (r: repo.ReceiverRow, deferred: Deferred[], baseUrl: string, secret: string): MediaServerReceiverWithSecret => ({
  ...present(r, deferred),
  secret,
  urls: hookUrls(baseUrl, secret),
});

const missing = (id: number) => notFound(`Media-server receiver ${id}`);

/** A new receiver of the actor's user, with its secret (shown only now); 409 past the cap. */
export async function createReceiver(em: EntityManager, actor: Actor, input: CreateReceiver, baseUrl: string): Promise<MediaServerReceiverWithSecret> {
  const secret = newSecret();
  const row = await transaction(em, async (tx) => {
    await repo.lockUserReceivers(tx, actor.userId);
    if ((await repo.countReceivers(tx, actor.userId)) >= RECEIVERS_PER_USER) {
      throw new ApiError('conflict', `A user keeps at most ${RECEIVERS_PER_USER} media-server receivers: delete one first`);
    }
    return repo.insertReceiver(tx, { userId: actor.userId, label: input.label, accountFilter: input.accountFilter ?? null, secretHash: secretHash(secret) });
  });
  return withSecret(row, [], baseUrl, secret);
}

/** The user's receivers, oldest first, each with its newest deferred events. */
export async function listReceivers(em: EntityManager, userId: string): Promise<MediaServerReceiverItem[]> {
  const rows = await repo.selectReceivers(em, userId);
  const deferred = await repo.selectDeferred(em, rows.map((r) => r.id));
  return rows.map((r) => present(r, deferred.filter((d) => d.receiver_id === r.id)));
}

async function deferredOf(em: EntityManager, id: string): Promise<Deferred[]> {
  return repo.selectDeferred(em, [id]);
}

/** Renames a receiver or changes its account filter; 404 when the user has no such receiver. */
export async function updateReceiver(em: EntityManager, userId: string, input: UpdateReceiver): Promise<MediaServerReceiverItem> {
  const row = await repo.updateReceiver(em, userId, input.id, { label: input.label, accountFilter: input.accountFilter });
  if (!row) throw missing(input.id);
  return present(row, await deferredOf(em, row.id));
}

/** A new secret (and URLs) for a receiver: the old URLs answer 404 from now on. */
export async function rotateReceiverSecret(em: EntityManager, userId: string, id: number, baseUrl: string): Promise<MediaServerReceiverWithSecret> {
  const secret = newSecret();
  const row = await repo.replaceSecret(em, userId, id, secretHash(secret));
  if (!row) throw missing(id);
  return withSecret(row, await deferredOf(em, row.id), baseUrl, secret);
}

/** Deletes a receiver (its URLs answer 404 from now on); 404 when the user has no such receiver. */
export async function deleteReceiver(em: EntityManager, userId: string, id: number): Promise<void> {
  if (!(await repo.deleteReceiver(em, userId, id))) throw missing(id);
}
