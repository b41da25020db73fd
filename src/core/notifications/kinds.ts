// The kinds of notification, one per event that produces one. A new producer adds its kind here and to
// the check constraints of the notification tables (a migration).
export const NOTIFICATION_KINDS = ['list_invitation', 'list_liked', 'new_episode', 'trophy_earned'] as const;

export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
