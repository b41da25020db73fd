// Bulk sync (POST /sync/{resource} with an Idempotency-Key), the change feed and the snapshot.
import { z, type ZodType } from 'zod';
import { CHANGE_RESOURCES, isChangeResource, readableResources, type ChangeResource } from '../../core/changes/resources.ts';
import { ApiError, invalidRequest, notFound } from '../../core/errors.ts';
import { runBulkSync, SYNC_WRITE_SCOPES, type BulkItems, type SyncResource } from '../../core/sync/bulk.ts';
import { readChanges } from '../../core/sync/changes.ts';
import { bodyHash } from '../../core/sync/idempotency.ts';
import type { SyncItem } from '../../core/sync/items.ts';
import {
  bulkInput,
  bulkResultSchema,
  changesOutput,
  historyItem,
  ITEM_DOCS,
  ratingItem,
  snapshotOutput,
  watchlistItem,
} from '../../core/sync/schemas.ts';
import { readSnapshot } from '../../core/sync/snapshot.ts';
import { describeZodError } from '../errors.ts';
import { SYNC_BODY_LIMIT } from '../../core/limits/body.ts';
import { wireInt } from '../../core/wire/numbers.ts';
import { anyScopeProcedure, authenticatedProcedure, platformProcedure, router, type Context } from '../trpc.ts';

const ITEM_SCHEMAS = { history: historyItem, ratings: ratingItem, watchlist: watchlistItem } satisfies Record<SyncResource, ZodType>;

/** Each item on its own: a malformed one becomes `invalid` with the reason, the others go on. */
export function parseItems(resource: SyncResource, raw: unknown[]): BulkItems {
  const schema = ITEM_SCHEMAS[resource];
  const items = raw.map((value, index): SyncItem<unknown> => {
    const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
    const cid = isObject ? (value as Record<string, unknown>).client_item_id : undefined;
    const clientItemId = typeof cid === 'string' ? cid : null;
    if (!isObject) return { index, clientItemId, ok: false, error: 'item must be a JSON object' };
    const parsed = schema.safeParse(value);
    return parsed.success ? { index, clientItemId, ok: true, item: parsed.data } : { index, clientItemId, ok: false, error: describeZodError(parsed.error) };
  });
  return { resource, items } as BulkItems;
}

function idempotencyKey(ctx: Context): string {
  const key = ctx.headers['idempotency-key'];
  if (typeof key !== 'string') throw invalidRequest('The Idempotency-Key header is required (8 to 200 characters), once');
  if (key.length < 8 || key.length > 200) throw invalidRequest('The Idempotency-Key header must be 8 to 200 characters');
  return key;
}

const idempotencyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(8)
    .max(200)
    .describe(
      'Required. The same key and body within 24 hours replays the stored result (`idempotency_replayed: true`); the same key with another body is 409 `idempotency_conflict`; while the first request runs, 409 `request_in_progress` (retry the same key). Keys are per app, user and resource.',
    ),
});

/** Each resource's body, typed for a caller by its item schema (built here: inside the generic bulkProcedure the item type would print as `unknown`). */
const BULK_INPUTS = {
  history: bulkInput(ITEM_SCHEMAS.history),
  ratings: bulkInput(ITEM_SCHEMAS.ratings),
  watchlist: bulkInput(ITEM_SCHEMAS.watchlist),
} satisfies Record<SyncResource, ZodType>;

function bulkProcedure<R extends SyncResource>(resource: R) {
  return platformProcedure(SYNC_WRITE_SCOPES[resource])
    .meta({
      openapi: {
        method: 'POST',
        path: `/sync/${resource}`,
        tags: ['sync'],
        summary: `Bulk ${resource} write, idempotent by key`,
        description: `${ITEM_DOCS[resource]} Every item gets its own result; titles that are not in the catalog are \`deferred\` (reason \`unmatched\`) and not kept: resend them later. Body at most 512 KiB, 1 to 100 items. The writes and the recorded result commit together: a request that fails or dies applies nothing, and its retry with the same key applies the batch once.`,
        protect: true,
        requestHeaders: idempotencyHeader,
      },
      limits: ['sync-write'],
      bodyLimit: SYNC_BODY_LIMIT,
      errors: ['idempotency_conflict', 'request_in_progress'],
    })
    .input(BULK_INPUTS[resource])
    .output(bulkResultSchema)
    .mutation(({ ctx, input }) => {
      const key = idempotencyKey(ctx);
      const beforeCommit = ctx.beforeSyncCommit;
      return runBulkSync(ctx.em, {
        ...parseItems(resource, input.items),
        userId: ctx.actor.userId,
        clientId: ctx.actor.clientId,
        key,
        hash: bodyHash(input.items),
        now: new Date(),
        beforeCommit: beforeCommit && ((tx) => beforeCommit(tx, ctx.log)),
      });
    });
}

function needsScope(resource: ChangeResource): ApiError {
  const scope = CHANGE_RESOURCES[resource];
  return new ApiError('insufficient_scope', `Reading ${resource} changes needs the ${scope} scope`, { required_scope: scope });
}

/** `resources` (comma-separated) checked against the token; omitted: every resource the token may read. */
function feedResources(scopes: ReadonlySet<string>, asked: string | undefined): ChangeResource[] {
  if (asked === undefined) {
    const readable = readableResources(scopes);
    if (readable.length === 0) {
      throw new ApiError('insufficient_scope', `This token may read no synced resource: it needs a read scope (${[...new Set(Object.values(CHANGE_RESOURCES))].join(', ')})`, {
        required_scope: CHANGE_RESOURCES.history,
      });
    }
    return readable;
  }
  const names = [...new Set(asked.split(',').map((s) => s.trim()))];
  for (const name of names) {
    if (!isChangeResource(name)) throw invalidRequest(`resources: unknown resource "${name}"; known: ${Object.keys(CHANGE_RESOURCES).join(', ')}`);
  }
  const resources = names as ChangeResource[];
  const denied = resources.find((r) => !scopes.has(CHANGE_RESOURCES[r]));
  if (denied) throw needsScope(denied);
  return resources;
}

const resourceNames = Object.keys(CHANGE_RESOURCES).join(', ');
/** The feed and the snapshot check scopes per resource: a token needs the read scope of one at least. */
const FEED_READ_SCOPES = [...new Set(Object.values(CHANGE_RESOURCES))];
const cursorInput = z.string().min(1).max(1000).optional();

export const syncRouter = router({
  history: bulkProcedure('history'),
  ratings: bulkProcedure('ratings'),
  watchlist: bulkProcedure('watchlist'),
  // Matched only by resources other than the three above (the facade tries procedures in order). A
  // token that could write none of the three learns nothing here: 403, as at each of them. Whatever the
  // body holds is dropped unread (zod's default for an object's unknown keys): the answer is a 404.
  other: anyScopeProcedure(Object.values(SYNC_WRITE_SCOPES))
    .meta({ openapi: { method: 'POST', path: '/sync/{resource}', tags: ['sync'], summary: 'Any other resource: 404 not_found', protect: true }, limits: ['sync-write'], bodyLimit: SYNC_BODY_LIMIT })
    .input(z.object({ resource: z.string() }))
    .output(bulkResultSchema)
    .mutation(({ input }) => {
      throw notFound(`Bulk sync of "${input.resource}" (history, ratings and watchlist can be synced)`);
    }),
  changes: authenticatedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/me/sync/changes',
        tags: ['sync'],
        summary: 'Change feed: every change of the user\'s data after a cursor, durable and ordered',
        description:
          'Delivery is at-least-once: apply each change idempotently keyed on (resource, resourceId). Without a cursor the feed starts at the beginning of retained history (the latest change of every live item, and everything of the last 90 days). Follow `nextCursor` (always present) with the same `resources`; `hasMore` false means caught up, poll later. A change of a transaction that commits late is never skipped. Cursors are valid 90 days from their issue; an older one is 400 `invalid_request`: take a new snapshot. Scope: the read scope of each resource asked for: ' +
          Object.entries(CHANGE_RESOURCES).map(([resource, scope]) => `${resource} ${scope}`).join(', ') + '.',
        protect: true,
      },
      limits: ['sync-changes'],
      anyScope: FEED_READ_SCOPES,
    })
    .input(
      z
        .object({
          cursor: cursorInput,
          limit: wireInt(1, 1000).default(100),
          resources: z.string().max(500).optional().describe(`Comma-separated, from: ${resourceNames}. Default: every resource the token may read`),
        })
        .strict(),
    )
    .output(changesOutput)
    .query(({ ctx, input }) =>
      readChanges(ctx.em, { userId: ctx.actor.userId, resources: feedResources(ctx.actor.scopes, input.resources), cursor: input.cursor, limit: input.limit, now: new Date() }),
    ),
  snapshot: authenticatedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/me/sync/snapshot',
        tags: ['sync'],
        summary: 'Snapshot: the current items of one resource, then follow changesCursor',
        description:
          'Each item is the same record the change feed carries. Page with `nextCursor` (null on the last page), keeping `resource` identical; then follow GET /me/sync/changes from `changesCursor` with `resources` = this resource: nothing between the two is lost. Scope: the resource\'s read scope.',
        protect: true,
      },
      limits: ['sync-snapshot'],
      anyScope: FEED_READ_SCOPES,
    })
    .input(
      z
        .object({
          resource: z.string().describe(`One of: ${resourceNames}`),
          cursor: cursorInput,
          limit: wireInt(1, 1000).default(100),
        })
        .strict(),
    )
    .output(snapshotOutput)
    .query(({ ctx, input }) => {
      if (!isChangeResource(input.resource)) throw invalidRequest(`resource: unknown resource "${input.resource}"; known: ${resourceNames}`);
      if (!ctx.actor.scopes.has(CHANGE_RESOURCES[input.resource])) throw needsScope(input.resource);
      return readSnapshot(ctx.em, { userId: ctx.actor.userId, resource: input.resource, cursor: input.cursor, limit: input.limit, now: new Date() });
    }),
});
