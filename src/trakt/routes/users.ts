// Trakt's users endpoints: the signed-in user's settings, a user's profile and statistics, and (in
// user-lists.ts) their personal lists. History, watched, ratings and watchlist have a file of their own.
import { visibleProfileParts } from '../../core/actor-visibility.ts';
import { ApiError } from '../../core/errors.ts';
import { MAX_LIST_ITEMS } from '../../core/lists/items.ts';
import type { TraktRoute } from '../route.ts';
import { pathUser } from '../user-path.ts';
import { traktProfile, wantsFull } from '../user-profile.ts';
import { traktUserStats } from '../user-stats.ts';
import { userListsRoutes } from './user-lists.ts';

const tag = 'Users';

export const usersRoutes: TraktRoute[] = [
  {
    method: 'GET',
    path: '/users/settings',
    summary: 'The signed-in user, their account and the app\'s view of them',
    tag,
    auth: 'required',
    async handle({ procedures, em, actor }) {
      // The procedure checks profile:read, as GET /me does; the profile's privacy and bio are read with it.
      const me = await procedures.platform.me.get();
      const user = await pathUser(em, actor, 'me');
      return {
        body: {
          user: { ...traktProfile(user, true), ids: { slug: user.username.toLowerCase(), trakt: null, uuid: me.id }, vip_cover_image: null, dob: null },
          account: { timezone: 'UTC', date_format: 'dmy', time_24hr: true, cover_image: null, token: null, display_ads: false },
          connections: { facebook: false, twitter: false, mastodon: false, google: false, tumblr: false, medium: false, slack: false, apple: false, dropbox: false, microsoft: false },
          sharing_text: { watching: 'I\'m watching [item]', watched: 'I just watched [item]', rated: '[item] [stars]' },
          // The service limits items per list (the watchlist is a list); it counts neither lists nor favourites.
          limits: { list: { count: MAX_LIST_ITEMS, item_count: MAX_LIST_ITEMS }, watchlist: { item_count: MAX_LIST_ITEMS }, favorites: { item_count: MAX_LIST_ITEMS } },
          permissions: { commenting: false, liking: true, following: false },
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/users/:id',
    summary: 'A user\'s profile (`me` or a username; a private profile is the owner\'s only); extended=full adds the account\'s facts',
    tag,
    auth: 'optional',
    async handle(call) {
      const user = await pathUser(call.em, call.actor, call.params.id!);
      return { body: traktProfile(user, wantsFull(call.query)) };
    },
  },
  {
    method: 'GET',
    path: '/users/:id/stats',
    summary: 'A user\'s statistics, from the figures kept on write',
    tag,
    auth: 'optional',
    async handle(call) {
      const user = await pathUser(call.em, call.actor, call.params.id!);
      // Your own figures are what GET /me/stats shows: profile:read, history and ratings by their scopes.
      // Another user's public profile shows its figures to everyone, as the public profile does.
      let see = { history: true, ratings: true };
      if (user.self) {
        if (!call.actor!.scopes.has('profile:read')) throw new ApiError('insufficient_scope', 'This call needs the profile:read scope', { required_scope: 'profile:read' });
        see = visibleProfileParts(call.actor!);
      }
      return { body: await traktUserStats(call.em, user.id, see) };
    },
  },
  ...userListsRoutes,
];
