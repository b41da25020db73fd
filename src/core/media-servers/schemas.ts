// Wire shapes of media-server receivers (`MediaServerReceiver` in the platform OpenAPI document): what a
// user creates, lists, renames, rotates and deletes. The secret and its URLs appear only in the answers
// that make them (create, rotate).
import { z } from 'zod';
import { MEDIA_SERVER_KINDS } from '../schema/media-servers.ts';
import { wireId } from '../wire/numbers.ts';

/** Receivers a user keeps at most (one per media server is what people need; a household has a few). */
export const RECEIVERS_PER_USER = 10;
/** The newest unmatched events each receiver keeps to show. */
export const DEFERRED_SHOWN = 10;
const LABEL_MAX = 100;
const ACCOUNT_FILTER_MAX = 200;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Text of 1 to `max` characters once trimmed, without control characters. */
const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((s) => !CONTROL.test(s), 'must not contain control characters');

const label = text(LABEL_MAX).describe(`What the receiver is for, e.g. "Living room Plex"; 1 to ${LABEL_MAX} characters.`);
const accountFilter = text(ACCOUNT_FILTER_MAX)
  .nullable()
  .describe(
    `Only events of this media-server account count: its user name (Plex \`Account.title\`, Jellyfin \`NotificationUsername\`, Emby \`User.Name\`; any letter case) or its id (Plex \`Account.id\`, Jellyfin and Emby \`UserId\`). Null: every account the server reports (a shared server reports its other users' plays too). At most ${ACCOUNT_FILTER_MAX} characters.`,
  );

const kinds = z.enum(MEDIA_SERVER_KINDS);

const deferredEvent = z
  .strictObject({
    kind: kinds,
    event: z.string().describe('The server\'s own name of the event (`media.scrobble`, `PlaybackStop`, `playback.stop`...).'),
    mediaType: z.enum(['movie', 'episode']),
    title: z.string().describe('The movie, or the episode\'s show, as the server named it.'),
    year: z.number().int().nullable(),
    season: z.number().int().nullable(),
    episode: z.number().int().nullable(),
    movieDbId: z.number().int().nullable(),
    filmDbId: z.string().nullable(),
    tvDbId: z.number().int().nullable(),
    receivedAt: z.string(),
  })
  .describe('An event whose title the catalog did not have (the newest first). Nothing was recorded for it: play the title again once the catalog has it.');

const counts = z.strictObject({ plex: z.number().int(), jellyfin: z.number().int(), emby: z.number().int() }).describe('Events received from each kind of server (any outcome).');

export const mediaServerReceiver = z
  .strictObject({
    id: z.number().int().min(1),
    label: z.string(),
    accountFilter: z.string().nullable().describe('Null: events of every account of the server count.'),
    createdAt: z.string(),
    secretCreatedAt: z.string().describe('When the secret in the receiver\'s URLs was made (creation or the latest rotation).'),
    lastEventAt: z.string().nullable().describe('When a server last posted to this receiver (any outcome); null before the first.'),
    events: counts,
    deferred: z.array(deferredEvent).max(DEFERRED_SHOWN),
  })
  .meta({ id: 'MediaServerReceiver' });
export type MediaServerReceiverItem = z.infer<typeof mediaServerReceiver>;

const urls = z
  .strictObject({ plex: z.string(), jellyfin: z.string(), emby: z.string() })
  .describe('Where each kind of server posts: the secret is part of each URL, so they are shown only now.');

export const mediaServerReceiverWithSecret = mediaServerReceiver
  .extend({
    secret: z.string().describe('The secret of the URLs, shown only in this answer: the service keeps only its hash. Rotate it to get new URLs.'),
    urls,
  })
  .meta({ id: 'MediaServerReceiverWithSecret' });
export type MediaServerReceiverWithSecret = z.infer<typeof mediaServerReceiverWithSecret>;

export const mediaServerReceiverList = z.strictObject({ items: z.array(mediaServerReceiver).max(RECEIVERS_PER_USER) }).meta({ id: 'MediaServerReceiverList' });

export const createReceiverInput = z.strictObject({ label, accountFilter: accountFilter.optional() });
export type CreateReceiver = z.infer<typeof createReceiverInput>;

export const updateReceiverInput = z
  .strictObject({ id: wireId(), label: label.optional(), accountFilter: accountFilter.optional() })
  .refine((v) => v.label !== undefined || v.accountFilter !== undefined, 'send label, accountFilter or both');
export type UpdateReceiver = z.infer<typeof updateReceiverInput>;

export const receiverIdInput = z.strictObject({ id: wireId() });
