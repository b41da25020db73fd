// Query keys of the user's lists, shared by the Lists, List and Watchlist pages: a change on one page
// marks what the others show as stale (everything under ['lists'] at once after a list is made or gone).
export const listKeys = {
  all: ['lists'] as const,
  mine: ['lists', 'mine'] as const,
  invitations: ['lists', 'invitations'] as const,
  detail: (id: number) => ['lists', 'detail', id] as const,
  watchlist: ['lists', 'watchlist'] as const,
};

/** The signed-in user (GET /me): the List pages need the username to leave a list or decline an invitation. */
export const meKey = ['me'] as const;
