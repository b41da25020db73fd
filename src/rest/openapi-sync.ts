// The typed shapes of bulk sync, the change feed and the snapshot in the platform OpenAPI document.
//
// At run time these routes are deliberately loose: a bulk body is `{items: unknown[]}` because each item
// is validated on its own (parseItems in src/rpc/routers/sync.ts: a malformed item is `invalid`, the
// rest are applied), and a change's `data` is whatever record its resource keeps. A client generator
// needs the real shapes, so the schemas below exist for the document only (never used to parse
// anything): `documentSync` renders them with zod-openapi (the bodies as input, the records as output,
// as the generator renders the routes) into components and points the three bulk bodies, the feed's
// changes and the snapshot's items at them after generation. (The generator's `defs` would render
// them both ways, and rename every shared component whose input and output forms differ.)
import { z } from 'zod';
import type { ZodType } from 'zod';
import { createSchema } from 'zod-openapi';
import { CHANGE_RESOURCES, type ChangeResource } from '../core/changes/resources.ts';
import { collectionItem } from '../core/collection/schemas.ts';
import { historyItem as historyRecord } from '../core/library/history-items.ts';
import { libraryItem } from '../core/library/library-items.ts';
import { listItem, listSummary } from '../core/lists/schemas.ts';
import { notification, notificationKind, preference as notificationPreference } from '../core/notifications/schemas.ts';
import { continueWatchingItem } from '../core/playback/schemas.ts';
import { preferences, profile } from '../core/profile/settings-schemas.ts';
import type { SyncResource } from '../core/sync/bulk.ts';
import { bulkInputDoc, historyItem, ITEM_DOCS, ratingItem, watchlistItem } from '../core/sync/schemas.ts';
import { trophy } from '../core/trophies/schemas.ts';

type Json = Record<string, unknown>;

const pascal = (name: string) => name.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

// Bulk bodies: the run-time item schemas themselves (their refinements cannot be drawn in JSON Schema;
// their descriptions say them), each in a body of 1 to 100.
const ITEMS: Record<SyncResource, ZodType> = { history: historyItem, ratings: ratingItem, watchlist: watchlistItem };

const bulkDefs = Object.fromEntries(
  (Object.keys(ITEMS) as SyncResource[]).flatMap((resource) => {
    const item = ITEMS[resource].meta({ id: `${pascal(resource)}SyncItem`, description: ITEM_DOCS[resource] });
    const body = bulkInputDoc(item).meta({ id: `${pascal(resource)}SyncRequest` });
    return [[resource, body]];
  }),
);

/**
 * The record each resource of the change feed carries in `data` (and the snapshot returns as an item):
 * the item its read endpoint serves. Typed by the resources table, so a new resource must be added here.
 */
const RECORDS: Record<ChangeResource, ZodType> = {
  history: historyRecord,
  ratings: libraryItem,
  favourites: libraryItem,
  show_status: libraryItem,
  lists: listSummary,
  list_items: listItem
    .extend({ listId: z.number().int().min(1).describe('The list the item is in.') })
    .meta({ id: 'ListItemRecord', description: 'A list item as GET /lists/{id}/items shows it to the user, plus `listId`.' }),
  list_likes: z
    .strictObject({ listId: z.number().int().min(1), likedAt: z.iso.datetime() })
    .meta({ id: 'ListLikeRecord', description: 'A like of a list by the user.' }),
  collection: collectionItem,
  playback: continueWatchingItem,
  profile,
  preferences,
  notifications: notification,
  notification_preferences: notificationPreference
    .extend({ kind: notificationKind })
    .meta({ id: 'NotificationPreferenceRecord', description: 'The preference of one notification kind.' }),
  trophies: trophy,
};

const RESOURCE_LIST = Object.keys(CHANGE_RESOURCES) as ChangeResource[];

const changeVariant = (resource: ChangeResource) =>
  z
    .strictObject({
      resource: z.literal(resource),
      resourceId: z.string().describe('Stable id of the item within its resource: apply changes idempotently keyed on (resource, resourceId)'),
      op: z.enum(['upsert', 'delete']),
      changedAt: z.iso.datetime(),
      data: RECORDS[resource].nullable().describe('The full current record as of this change; null for a delete'),
    })
    .meta({ id: `${pascal(resource)}Change`, description: `A change of \`${resource}\` (read scope \`${CHANGE_RESOURCES[resource]}\`).` });

const [first, second, ...rest] = RESOURCE_LIST.map(changeVariant);

const change = z.discriminatedUnion('resource', [first!, second!, ...rest]).meta({
  id: 'Change',
  description: 'One change of the user\'s data. `resource` tells the shape of `data` (the record the resource\'s read endpoint serves); `op` `delete` has `data` null.',
});

const distinctRecords = [...new Set(Object.values(RECORDS))];
const syncRecord = z.union(distinctRecords as [ZodType, ZodType, ...ZodType[]]).meta({
  id: 'SyncRecord',
  description: 'An item of the resource asked for: the same record the change feed carries in `data` for that resource.',
});

/** The components of the document-only schemas (the shared records included, rendered as the routes render them). */
function syncComponents(): Record<string, Json> {
  const components: Record<string, Json> = {};
  const render = (schema: ZodType, io: 'input' | 'output') => Object.assign(components, createSchema(schema, { io, openapiVersion: '3.1.0' }).components);
  for (const body of Object.values(bulkDefs)) render(body, 'input');
  render(change, 'output');
  render(syncRecord, 'output');
  return components;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function jsonSchemaAt(op: Json | undefined, where: 'request' | 'response', label: string): Json {
  const holder = where === 'request' ? (op?.requestBody as Json | undefined) : ((op?.responses as Json | undefined)?.['200'] as Json | undefined);
  const media = (holder?.content as Json | undefined)?.['application/json'] as Json | undefined;
  if (!media?.schema) throw new Error(`OpenAPI: no JSON ${where} schema for ${label}`);
  return media;
}

function property(schema: Json, name: string, label: string): Json {
  const p = (schema.properties as Json | undefined)?.[name] as Json | undefined;
  if (!p) throw new Error(`OpenAPI: no property ${name} in ${label}`);
  return p;
}

/**
 * Adds the typed schemas to the components (those the generator rendered already stay as they are) and
 * points the loose schemas of the sync routes at them.
 */
export function documentSync(paths: Record<string, Json>, schemas: Record<string, unknown>): void {
  for (const [name, schema] of Object.entries(syncComponents())) schemas[name] ??= schema;
  for (const resource of Object.keys(ITEMS)) {
    const label = `POST /sync/${resource}`;
    jsonSchemaAt(paths[`/sync/${resource}`]?.post as Json, 'request', label).schema = ref(`${pascal(resource)}SyncRequest`);
  }
  const changes = jsonSchemaAt(paths['/me/sync/changes']?.get as Json, 'response', 'GET /me/sync/changes').schema as Json;
  property(changes, 'changes', 'GET /me/sync/changes').items = ref('Change');
  const snapshot = jsonSchemaAt(paths['/me/sync/snapshot']?.get as Json, 'response', 'GET /me/sync/snapshot').schema as Json;
  property(snapshot, 'items', 'GET /me/sync/snapshot').items = ref('SyncRecord');
}
