// Watch history: log (a movie, an episode, a season, a show), read in keyset pages, edit the time of an
// entry, remove an entry. Scopes history:read / history:write.
import { z } from 'zod';
import { historyItem } from '../../core/library/history-items.ts';
import { changeWatchedAt, deleteWatch } from '../../core/library/history-edit.ts';
import { logTitleWatch } from '../../core/library/history-log.ts';
import { listHistory } from '../../core/library/history-read.ts';
import { editWatchInput, entryId, historyQuery, logWatchInput } from '../../core/library/inputs.ts';
import { platformProcedure, router } from '../trpc.ts';

const LOG_DOC = `A movie; one episode (season and episode); every aired episode of a season (season); or every aired episode of the show's regular seasons (neither; specials only when season 0 is named). Episodes without an air date count as aired. All entries get the same watchedAt. A watch of the same movie or episode within an hour of one already logged is \`skipped\` and answers the existing entry. Logging moves show statuses (see PUT /show-status).`;
const LIST_DOC = 'Newest first by (watchedAt, id). `type` filters the category (`movie` and `show` exclude anime). `startAt` is inclusive, `endAt` exclusive. A cursor is bound to type, startAt and endAt (other values: 400); `limit` may change between pages.';

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
