// Wire shapes of the user's own profile and preferences (platform API). Their shapes are ours (only paths and scopes are given); docs/decisions.md says
// what each field means. As elsewhere, text the user has not set is "" and optional values are null.
import { z } from 'zod';
import { DEFAULT_WATCHED_THRESHOLD } from '../playback/schemas.ts';

const dateTime = z.string().describe('ISO 8601 date-time (UTC)');

export const PRIVACY = ['public', 'private'] as const;
export const BIO_MAX = 500;
const LANGUAGE_MAX = 35;
const THRESHOLD_MIN = 0.5;

const PRIVACY_DOC = '`public` (the default): GET /api/public/v1/users/{username} shows the profile, its counts, favourites, recent watches and public lists. `private`: the profile looks like a username that does not exist to everyone but the people of the lists the user owns or belongs to (their owner, collaborators and invited users): that path answers 404, the user\'s lists answer 404 to others and are left out of the community overview and of featured lists, the user is left out of other people\'s lists\' collaborators, and can be invited to a list only by someone they already share one with.';

export const profile = z
  .strictObject({
    id: z.string().describe('Stable user id'),
    username: z.string(),
    displayName: z.string(),
    avatarUrl: z.string().nullable().describe('null when the user has none.'),
    bio: z.string().describe('"" when the user has none.'),
    privacy: z.enum(PRIVACY).describe(PRIVACY_DOC),
    joinedAt: dateTime,
  })
  .meta({ id: 'Profile' });
export type Profile = z.infer<typeof profile>;

export const profileUpdate = z
  .strictObject({
    displayName: z.string().nullable().optional().describe('Trimmed, 1 to 64 characters without control characters; null resets it to the username.'),
    avatarUrl: z.string().nullable().optional().describe('An absolute https URL of at most 2048 characters; null removes it.'),
    bio: z.string().optional().describe(`Trimmed, at most ${BIO_MAX} characters; line breaks allowed, other control characters not; "" removes it.`),
    privacy: z.enum(PRIVACY).optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'displayName, avatarUrl, bio or privacy is required' });
export type ProfileUpdate = z.infer<typeof profileUpdate>;

const SPOILER_FIELDS = {
  hideEpisodeTitles: 'Hide the titles of episodes the user has not watched.',
  hideOverviews: 'Hide overviews (summaries) of titles and episodes the user has not watched.',
  hideImages: 'Hide episode stills of episodes the user has not watched.',
  hideRatings: 'Hide community ratings of titles the user has not watched.',
} as const;
type SpoilerField = keyof typeof SPOILER_FIELDS;

const spoilerFields = <T extends z.ZodType>(make: () => T) =>
  Object.fromEntries(Object.entries(SPOILER_FIELDS).map(([k, doc]) => [k, make().describe(doc)])) as Record<SpoilerField, T>;

const spoilers = z.strictObject(spoilerFields(() => z.boolean())).meta({ id: 'SpoilerSettings' });

export const preferences = z
  .strictObject({
    region: z.string().nullable().describe('ISO 3166-1 alpha-2 country code in capitals (e.g. `US`); null until set.'),
    language: z.string().nullable().describe('BCP 47 language tag in canonical form (e.g. `en-US`, `pt-BR`, `zh-Hant-TW`); null until set.'),
    spoilers: spoilers.describe('Spoiler settings for apps to honour; all false until set.'),
    watchedThreshold: z
      .number()
      .min(THRESHOLD_MIN)
      .max(1)
      .describe(`Playback progress at or over which a stop logs the watch, when the event carries no \`watched_threshold\`; ${DEFAULT_WATCHED_THRESHOLD} until set.`),
  })
  .meta({ id: 'Preferences' });
export type Preferences = z.infer<typeof preferences>;

export const preferencesUpdate = z
  .strictObject({
    region: z.string().regex(/^[A-Za-z]{2}$/, 'must be two letters (ISO 3166-1 alpha-2)').nullable().optional().describe('Two letters (either case, stored in capitals); null clears it.'),
    language: z.string().min(2).max(LANGUAGE_MAX).nullable().optional().describe(`A BCP 47 language tag of at most ${LANGUAGE_MAX} characters, stored in canonical form; null clears it.`),
    spoilers: z.strictObject(spoilerFields(() => z.boolean().optional())).optional().describe('Only the settings given change.'),
    watchedThreshold: z.number().min(THRESHOLD_MIN).max(1).nullable().optional().describe(`${THRESHOLD_MIN} to 1; null resets it to ${DEFAULT_WATCHED_THRESHOLD}.`),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'region, language, spoilers or watchedThreshold is required' });
export type PreferencesUpdate = z.infer<typeof preferencesUpdate>;

