// Events of the live stream that say more than its own scope (events:read) lets a token read: each is
// sent only on streams whose token also holds the scope named here. The stream still counts such an event
// as passed (its id moves the stream's position), so a stream without the scope sees no gap.

/** The unread count of the user's notifications (notifications/unread-event.ts). */
export const NOTIFICATIONS_UNREAD = 'notifications.unread';

const EVENT_SCOPES: Readonly<Record<string, string>> = { [NOTIFICATIONS_UNREAD]: 'notifications:read' };

/** Whether a stream of a token with `scopes` sends the event named `name`. */
export function streamSends(scopes: ReadonlySet<string>, name: string): boolean {
  const needed = EVENT_SCOPES[name];
  return needed === undefined || scopes.has(needed);
}
