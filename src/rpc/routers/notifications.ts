// Notifications: the inbox (cursor pages, unread count), marking read, and preferences per kind.
// Scopes: reads notifications:read, writes notifications:write (the scope table of the platform OpenAPI document). Notifications are
// produced by real events (src/core/notifications: list invitations, list likes, new episodes, trophies).
import { z } from 'zod';
import { countUnread, listNotifications } from '../../core/notifications/inbox.ts';
import { markAllRead, markRead } from '../../core/notifications/mark-read.ts';
import { LOOKBACK_DAYS } from '../../core/notifications/new-episodes.ts';
import { getPreferences, updatePreferences } from '../../core/notifications/preferences.ts';
import {
  inboxQuery, markedAll, notification, notificationId, notificationPage, PAGE_DEFAULT, PAGE_MAX, preferences, preferencesPatch, unreadCount,
} from '../../core/notifications/schemas.ts';
import { platformProcedure, router } from '../trpc.ts';

const tags = ['notifications'];
const EMPTY_BODY = 'Send `{}` with Content-Type application/json as the body, or no body.';

const INBOX_DOC = `Newest first by (createdAt, id). \`limit\` 1-${PAGE_MAX} (default ${PAGE_DEFAULT}); \`unread\` \`true\`/\`false\` (or \`1\`/\`0\`) filters; follow \`nextCursor\` (absent on the last page) keeping \`unread\` identical (else 400 \`invalid_request\`); \`limit\` may change between pages.

Kinds and their \`data\`:
- \`list_invitation\`: the user was invited to collaborate on a list (once per invitation; accept with POST /lists/{id}/collaborators/accept). \`data\`: \`{listId, listName, fromUsername}\`.
- \`list_liked\`: another user liked one of the user's lists (once per list and user, also when the like is taken back and given again). \`data\`: \`{listId, listName, fromUsername}\`; a liker whose profile is private and who is not invited to or collaborating on the list is not named: the text says "Someone" and \`fromUsername\` is null.
- \`new_episode\`: an episode of a followed show has aired. A show is followed while its status is \`watching\`, \`planned\` or \`completed\`, or while it is on the watchlist or a favourite, and never while its status is \`paused\` or \`dropped\`. Announced on its air date (UTC) or up to ${LOOKBACK_DAYS} days later, only when it aired on or after the day the user began following the show and is not in the user's history yet; once per user and episode. \`data\`: \`{type, movieDbId, punchplayId, showName, season, episode, episodeName, airDate}\`.
- \`trophy_earned\`: the user earned a trophy. \`data\`: the trophy (see the trophies endpoints).

Every new notification and read state also shows in the change feed as resource \`notifications\` (the record as shown here).`;

export const notificationsRouter = router({
  list: platformProcedure('notifications:read')
    .meta({ openapi: { method: 'GET', path: '/me/notifications', tags, protect: true, summary: 'The notification inbox, newest first, in cursor pages', description: INBOX_DOC } })
    .input(inboxQuery)
    .output(notificationPage)
    .query(({ ctx, input }) => listNotifications(ctx.em, ctx.actor.userId, input)),

  unreadCount: platformProcedure('notifications:read')
    .meta({ openapi: { method: 'GET', path: '/me/notifications/unread-count', tags, protect: true, summary: 'How many notifications are unread' } })
    .input(z.object({}).strict().optional())
    .output(unreadCount)
    .query(async ({ ctx }) => ({ unread: await countUnread(ctx.em, ctx.actor.userId) })),

  markRead: platformProcedure('notifications:write')
    .meta({
      openapi: {
        method: 'POST', path: '/me/notifications/{id}/read', tags, protect: true,
        summary: 'Mark one notification read (already read: no change, the first readAt stays)',
        description: `Answers the notification. An unknown id, or another user's notification: 404 \`not_found\`. ${EMPTY_BODY}`,
      },
    })
    .input(z.object({ id: notificationId }).strict())
    .output(notification)
    .mutation(({ ctx, input }) => markRead(ctx.em, ctx.actor.userId, input.id)),

  markAllRead: platformProcedure('notifications:write')
    .meta({ openapi: { method: 'POST', path: '/me/notifications/read-all', tags, protect: true, summary: 'Mark every unread notification read', description: `Answers how many this call marked (0 when none was unread). ${EMPTY_BODY}` } })
    .input(z.object({}).strict().optional())
    .output(markedAll)
    .mutation(async ({ ctx }) => ({ marked: await markAllRead(ctx.em, ctx.actor.userId) })),

  preferences: platformProcedure('notifications:read')
    .meta({ openapi: { method: 'GET', path: '/me/notification-preferences', tags, protect: true, summary: 'Notification preferences: every kind, with its in-app and push switches (on unless turned off)' } })
    .input(z.object({}).strict().optional())
    .output(preferences)
    .query(({ ctx }) => getPreferences(ctx.em, ctx.actor.userId)),

  updatePreferences: platformProcedure('notifications:write')
    .meta({
      openapi: {
        method: 'PATCH', path: '/me/notification-preferences', tags, protect: true,
        summary: 'Change notification preferences of the kinds given',
        description: 'Only the kinds in the body change, and of each only the channels given (e.g. `{"list_liked": {"inApp": false}}`). `inApp` off: notifications of that kind are not recorded while it is off and are not made up later, except that a new episode still within the new-episode window is announced once the kind is back on. `push` is kept for push delivery. An unknown kind or channel, or a value that is not a boolean: 400 `invalid_request`. Answers every kind\'s preferences; each changed kind shows in the change feed as resource `notification_preferences` (`{kind, inApp, push}`, resourceId the kind).',
      },
    })
    .input(preferencesPatch)
    .output(preferences)
    .mutation(({ ctx, input }) => updatePreferences(ctx.em, ctx.actor.userId, input)),
});
