// Wire shapes of notifications and their preferences, and the inputs of the notification endpoints.
// The scopes are notifications:read / notifications:write; the shapes are ours (docs/decisions.md, Notifications).
import { z } from 'zod';
import { queryBoolean } from '../wire/booleans.ts';
import { wireInt } from '../wire/numbers.ts';
import { NOTIFICATION_KINDS, type NotificationKind } from './kinds.ts';

const dateTime = z.string().describe('ISO 8601 date-time (UTC)');

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 100;

export const notificationKind = z.enum(NOTIFICATION_KINDS).meta({
  id: 'NotificationKind',
  description:
    '`list_invitation`: the user was invited to collaborate on a list; `list_liked`: someone else liked one of the user\'s lists; ' +
    '`new_episode`: an episode of a show the user follows has aired; `trophy_earned`: the user earned a trophy.',
});

export const notification = z
  .object({
    id: z.string().describe('Opaque id (digits); use it in POST /me/notifications/{id}/read.'),
    kind: notificationKind,
    title: z.string().describe('One line to show, already worded.'),
    body: z.string().describe('The text under the title, already worded.'),
    data: z.record(z.string(), z.unknown()).describe('What the notification is about, per kind (free-form; see the endpoint description).'),
    read: z.boolean(),
    readAt: dateTime.nullable().describe('When it was marked read; null while unread.'),
    createdAt: dateTime,
  })
  .strict()
  .meta({ id: 'Notification' });

export const notificationPage = z
  .object({ items: z.array(notification), nextCursor: z.string().optional().describe('Absent on the last page.') })
  .strict()
  .meta({ id: 'NotificationPage' });

export const inboxQuery = z
  .object({
    cursor: z.string().min(1).max(500).optional(),
    limit: wireInt(1, PAGE_MAX).default(PAGE_DEFAULT),
    unread: queryBoolean.optional().describe('`true`: unread only; `false`: read only; absent: all.'),
  })
  .strict();

export const notificationId = z
  .string()
  .regex(/^[1-9][0-9]{0,17}$/, 'must be a notification id')
  .describe('The notification id.');

export const unreadCount = z.object({ unread: z.number().int().min(0) }).strict().meta({ id: 'NotificationUnreadCount' });

export const markedAll = z
  .object({ marked: z.number().int().min(0).describe('Notifications this call marked read (0 when all were read already).') })
  .strict()
  .meta({ id: 'NotificationsMarkedRead' });

const channels = {
  inApp: z.boolean().describe('Recorded in the inbox. Off: notifications of this kind are not recorded at all.'),
  push: z.boolean().describe('Sent to the user\'s push devices once push delivery exists; stored now so clients can offer the switch.'),
};

export const preference = z.object(channels).strict().meta({ id: 'NotificationPreference' });

const byKind = <T extends z.ZodType>(value: T) => Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, value])) as Record<NotificationKind, T>;

export const preferences = z
  .object(byKind(preference))
  .strict()
  .meta({ id: 'NotificationPreferences', description: 'Every kind; a kind never changed is on for every channel.' });

/** PATCH body: the kinds to change, each with the channels to change (the others keep their value). */
export const preferencesPatch = z
  .object(byKind(z.object({ inApp: channels.inApp.optional(), push: channels.push.optional() }).strict().optional()))
  .strict()
  .describe('Only the kinds given change, and of those only the channels given. An unknown kind or channel: 400.');

export type Preferences = z.infer<typeof preferences>;
export type PreferencesPatch = z.infer<typeof preferencesPatch>;
