// Procedures of the titles module: title detail (`TitleDetail` in the platform OpenAPI document), seasons, episodes
// and the calendar (shapes of our own, in core/titles/schemas.ts). All need profile:read; the user's
// state in them follows the private-field rule (core/actor-visibility.ts).
import { calendar } from '../../core/titles/calendar.ts';
import { titleDetail } from '../../core/titles/detail.ts';
import {
  calendar as calendarOutput,
  calendarInput,
  episodeDetail as episodeDetailOutput,
  episodeInput,
  seasonDetail as seasonDetailOutput,
  seasonInput,
  seasonList as seasonListOutput,
  showInput,
  titleDetail as titleDetailOutput,
  titleDetailInput,
} from '../../core/titles/schemas.ts';
import { episodeDetail, seasonDetail, seasonList } from '../../core/titles/seasons.ts';
import { platformProcedure, router } from '../trpc.ts';

const PRIVATE_RULE = 'User state is included only with the read scope that covers it: interaction ratings:read, watch history history:read, userLists lists:read, collectionStatus collection:read; null (or empty) otherwise.';

export const titlesRouter = router({
  detail: platformProcedure('profile:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/title/{type}/{id}',
        tags: ['titles'],
        summary: 'A title with the user\'s state, lists, collection status and ratings',
        description: `${PRIVATE_RULE} \`scope\` picks the interaction's rating: \`title\`/\`series\` the title as a whole (default), \`season\`/\`episode\` the mean of the user's season or episode ratings. \`region\` is validated and reserved (the catalog has no regional data yet).`,
        protect: true,
      },
    })
    .input(titleDetailInput)
    .output(titleDetailOutput)
    .query(({ ctx, input }) => titleDetail({ em: ctx.em, imageBaseUrl: ctx.config.imageBaseUrl }, ctx.actor, input)),
  seasons: platformProcedure('profile:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/title/show/{id}/seasons',
        tags: ['titles'],
        summary: 'Seasons of a show with episode counts and the user\'s watched counts',
        description: 'watchedEpisodes is null unless the token has history:read. Movies have no seasons (404).',
        protect: true,
      },
    })
    .input(showInput)
    .output(seasonListOutput)
    .query(({ ctx, input }) => seasonList(ctx.em, ctx.actor, input.id, ctx.config.imageBaseUrl)),
  season: platformProcedure('profile:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/title/show/{id}/seasons/{season}',
        tags: ['titles'],
        summary: 'One season with its episodes and the user\'s watched state of each',
        description: 'watched, watchedAt and plays are null unless the token has history:read; rating unless it has ratings:read.',
        protect: true,
      },
    })
    .input(seasonInput)
    .output(seasonDetailOutput)
    .query(({ ctx, input }) => seasonDetail(ctx.em, ctx.actor, input, ctx.config.imageBaseUrl)),
  episode: platformProcedure('profile:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/title/show/{id}/seasons/{season}/episodes/{episode}',
        tags: ['titles'],
        summary: 'One episode with the user\'s watched state and rating',
        description: 'watched, watchedAt and plays are null unless the token has history:read; rating unless it has ratings:read.',
        protect: true,
      },
    })
    .input(episodeInput)
    .output(episodeDetailOutput)
    .query(({ ctx, input }) => episodeDetail(ctx.em, ctx.actor, input, ctx.config.imageBaseUrl)),
  calendar: platformProcedure('profile:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/calendar',
        tags: ['titles'],
        summary: 'Episodes airing from startDate for days days of the shows the user follows',
        description:
          'Followed shows: favourites, shows with a status other than dropped, and shows with a watched episode unless dropped. startDate YYYY-MM-DD (default today, UTC); days 1 to 31 (default 7). watched is null unless the token has history:read.',
        protect: true,
      },
      limits: ['calendar'],
    })
    .input(calendarInput)
    .output(calendarOutput)
    .query(({ ctx, input }) => calendar(ctx.em, ctx.actor, input, ctx.config.imageBaseUrl)),
});
