// Trakt's users endpoints: the signed-in user's settings and profile, and users' lists, history,
// ratings, watchlist, watched and stats.
import type { TraktRoute } from '../route.ts';
import { traktUser } from '../users-present.ts';

export const usersRoutes: TraktRoute[] = [
  {
    method: 'GET',
    path: '/users/settings',
    summary: 'The signed-in user, their account and the app\'s view of them',
    tag: 'Users',
    auth: 'required',
    async handle({ procedures }) {
      const me = await procedures.platform.me.get();
      return {
        body: {
          user: traktUser({ username: me.username, displayName: me.displayName, avatarUrl: me.avatarUrl, createdAt: me.createdAt, private: false }),
          account: { timezone: 'UTC', date_format: 'dmy', time_24hr: true, cover_image: null },
          connections: { facebook: false, twitter: false, mastodon: false, google: false, tumblr: false, medium: false, slack: false, apple: false, dropbox: false, microsoft: false },
          sharing_text: { watching: null, watched: null, rated: null },
          limits: { list: { count: 100, item_count: 5000 }, watchlist: { item_count: 5000 }, favorites: { item_count: 5000 } },
          permissions: { commenting: false, liking: true, following: false },
        },
      };
    },
  },
];
