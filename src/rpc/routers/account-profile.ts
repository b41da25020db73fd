// The user's own profile and app preferences: reads with profile:read, updates with profile:write.
// PATCH changes only the fields given; unknown fields are 400 `invalid_request`. Each update records
// the whole record in the change feed (resources `profile` and `preferences`, read scope profile:read).
import { z } from 'zod';
import { readPreferences, updatePreferences } from '../../core/profile/preferences.ts';
import { readProfile, updateProfile } from '../../core/profile/profile.ts';
import { preferences, preferencesUpdate, profile, profileUpdate } from '../../core/profile/settings-schemas.ts';
import { platformProcedure, router } from '../trpc.ts';

const tags = ['profile'];
const PATCH_DOC = 'Only the fields given change; at least one is required; unknown fields are 400 `invalid_request`. The change feed gets the whole record as a change of resource';
const FEED_DOC = 'The change feed carries the record from its first update on; before that, read it here.';

export const accountProfileRouter = router({
  profile: platformProcedure('profile:read')
    .meta({ openapi: { method: 'GET', path: '/me/profile', tags, protect: true, summary: 'The user\'s profile: display name, avatar, bio, privacy', description: FEED_DOC } })
    .input(z.strictObject({}).optional())
    .output(profile)
    .query(({ ctx }) => readProfile(ctx.em, ctx.actor.userId)),
  updateProfile: platformProcedure('profile:write')
    .meta({ openapi: { method: 'PATCH', path: '/me/profile', tags, protect: true, summary: 'Change the display name, avatar, bio or privacy', description: `${PATCH_DOC} \`profile\` (resourceId: the user id).` } })
    .input(profileUpdate)
    .output(profile)
    .mutation(({ ctx, input }) => updateProfile(ctx.em, ctx.actor.userId, input)),
  preferences: platformProcedure('profile:read')
    .meta({ openapi: { method: 'GET', path: '/me/preferences', tags, protect: true, summary: 'The user\'s app preferences: region, language, spoiler settings, default watched threshold', description: FEED_DOC } })
    .input(z.strictObject({}).optional())
    .output(preferences)
    .query(({ ctx }) => readPreferences(ctx.em, ctx.actor.userId)),
  updatePreferences: platformProcedure('profile:write')
    .meta({
      openapi: {
        method: 'PATCH', path: '/me/preferences', tags, protect: true,
        summary: 'Change app preferences',
        description: `${PATCH_DOC} \`preferences\` (resourceId: the user id). Within \`spoilers\`, too, only the settings given change. \`watchedThreshold\` is what POST /playback/stop applies when the event carries no \`watched_threshold\`.`,
      },
    })
    .input(preferencesUpdate)
    .output(preferences)
    .mutation(({ ctx, input }) => updatePreferences(ctx.em, ctx.actor.userId, input)),
});
