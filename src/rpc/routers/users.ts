// Public user profiles (GET /users/{username} in the public OpenAPI document).
import { z } from 'zod';
import { PROFILE_FAVOURITES, PROFILE_LISTS, PROFILE_RECENT_WATCHES, publicProfile as publicProfileShape } from '../../core/community/schemas.ts';
import { publicProfile } from '../../core/community/public-profile.ts';
import { publicProcedure, router } from '../trpc.ts';

const DOC = `The username matches regardless of case. A private profile answers 404 \`{message}\` exactly as an unknown username does, so privacy does not reveal which usernames exist. \`stats\` counts the user's whole history, ratings, favourites and public lists; \`favourites\` are the ${PROFILE_FAVOURITES} most recently favourited titles (catalog items), \`recentWatches\` the ${PROFILE_RECENT_WATCHES} newest watches (a movie has season 0, episode 0 and episodeTitle ""), \`lists\` up to ${PROFILE_LISTS} public lists the user owns (list summaries with \`likeCount\`), most liked first. Not cached: a profile made private disappears at once.`;

export const usersRouter = router({
  get: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/users/{username}', tags: ['users'], summary: 'A user\'s public profile', description: DOC, protect: false }, limits: ['public-user'] })
    .input(z.strictObject({ username: z.string().min(1).max(100) }))
    .output(publicProfileShape)
    .query(({ ctx, input }) => publicProfile(ctx.em, input.username, ctx.config.imageBaseUrl)),
});
