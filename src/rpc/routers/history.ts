// Watch history: log (a movie, an episode, a season, a show), read in keyset pages, edit the time of an
// entry, remove an entry; and Up next, the next episode of each show the user is watching (read from
// the kept per-title figures). Scopes history:read / history:write.
import { z } from 'zod';
import { historyItem } from '../../core/library/history-items.ts';
import { changeWatchedAt, deleteWatch } from '../../core/library/history-edit.ts';
import { logTitleWatch } from '../../core/library/history-log.ts';
import { listHistory } from '../../core/library/history-read.ts';
import { editWatchInput, entryId, historyQuery, logWatchInput } from '../../core/library/inputs.ts';
import { listUpNext } from '../../core/library/up-next.ts';
import { upNextPage, upNextQuery } from '../../core/library/up-next-schemas.ts';
import { platformProcedure, router } from '../trpc.ts';

const LOG_DOC = `A movie; one episode (season and episode); every aired episode of a season (season); or every aired episode of the show's regular seasons (neither; specials only when season 0 is named). Episodes without an air date count as aired. All entries get the same watchedAt. A watch of the same movie or episode within an hour of one already logged is \`skipped\` and answers the existing entry. Logging moves show statuses (see PUT /show-status).`;
const LIST_DOC = 'Newest first by (watchedAt, id). `type` filters the category (`movie` and `show` exclude anime). `startAt` is inclusive, `endAt` exclusive. A cursor is bound to type, startAt and endAt (other values: 400); `limit` may change between pages.';

const UP_NEXT_DOC = `Per show the user is watching, the next episode to watch: the first regular episode (season 1 and up) after the furthest one the user watched, by season and episode number, that has aired (air date today, UTC, or earlier; an episode without a date counts as aired). A show is listed while the user has watched a regular episode of it and has not set its status to \`dropped\` (a \`paused\` show stays). Shows with nothing next aired are left out, not listed with an empty next episode: a show whose next episode has not aired yet, a completed show, a show whose last episode the user watched. Shows the user follows without having watched a regular episode (a status, a favourite, the watchlist) are not listed: see GET /calendar for what airs. Latest watch first by (lastWatchedAt, show); a show moves to the top when an episode of it is watched, and an entry deleted moves its next episode back. \`show\` is the catalog item. A cursor is bound to \`limit\` (another value: 400 \`invalid_request\`).`;

const logged = historyItem.extend({ status: z.enum(['inserted', 'skipped']).describe('`skipped`: the same watch was already logged within an hour; the existing entry.') });

export const historyRouter = router({
  log: platformProcedure('history:write')
    .meta({ openapi: { method: 'POST', path: '/watch-history', tags: ['history'], summary: 'Log a watch of a movie, an episode, a season or a whole show (one entry per aired episode)', description: LOG_DOC, protect: true }, errors: ['not_found'] })
    .input(logWatchInput)
    .output(z.strictObject({ inserted: z.number().int().min(0), skipped: z.number().int().min(0), items: z.array(logged) }).meta({ id: 'LoggedWatches' }))
    .mutation(({ ctx, input }) =>
      logTitleWatch(ctx.em, ctx.actor.userId, ctx.actor.clientId, { ...input, watchedAt: input.watchedAt ?? new Date() }),
    ),
  list: platformProcedure('history:read')
    .meta({ openapi: { method: 'GET', path: '/me/history', tags: ['history'], summary: 'The user\'s watch history, newest first, in cursor pages', description: LIST_DOC, protect: true }, limits: ['history'] })
    .input(historyQuery)
    .output(z.strictObject({ items: z.array(historyItem), nextCursor: z.string().optional().describe('Absent on the last page.') }).meta({ id: 'HistoryPage' }))
    .query(({ ctx, input }) => listHistory(ctx.em, ctx.actor.userId, input)),
  upNext: platformProcedure('history:read')
    .meta({ openapi: { method: 'GET', path: '/me/up-next', tags: ['history'], summary: 'Up next: the next episode of each show the user is watching, latest watch first, in cursor pages', description: UP_NEXT_DOC, protect: true }, limits: ['up-next'] })
    .input(upNextQuery)
    .output(upNextPage)
    .query(({ ctx, input }) => listUpNext(ctx.em, ctx.actor.userId, input, ctx.config.imageBaseUrl)),
  edit: platformProcedure('history:write')
    .meta({ openapi: { method: 'PATCH', path: '/watch-history/{id}', tags: ['history'], summary: 'Change when a history entry was watched', description: 'Not in the future. Another user\'s entry is 404. A moved entry is not merged with a watch near its new time.', protect: true } })
    .input(editWatchInput)
    .output(z.strictObject({ id: z.number().int().min(1), watchedAt: z.iso.datetime() }))
    .mutation(({ ctx, input }) => changeWatchedAt(ctx.em, ctx.actor.userId, input.id, input.watchedAt)),
  remove: platformProcedure('history:write')
    .meta({ openapi: { method: 'DELETE', path: '/watch-history/{id}', tags: ['history'], summary: 'Remove a history entry', description: 'Another user\'s entry is 404. Show statuses stay as they are.', protect: true } })
    .input(z.strictObject({ id: entryId }))
    .output(z.strictObject({ id: z.number().int().min(1), deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await deleteWatch(ctx.em, ctx.actor.userId, input.id);
      return { id: input.id, deleted: true as const };
    }),
});
