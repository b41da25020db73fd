// Every route of the Trakt-compatible facade, in the order they are matched (a literal segment before a
// parameter in the same place: `/users/settings` before `/users/:id`).
import type { TraktRoute } from '../route.ts';
import { mediaRoutes } from './media.ts';
import { searchRoutes } from './media-search.ts';
import { mediaUserRoutes } from './media-user.ts';
import { oauthRoutes } from './oauth.ts';
import { scrobbleRoutes } from './scrobble.ts';
import { syncPlaybackRoutes } from './sync-playback.ts';
import { syncRoutes } from './sync.ts';
import { syncReadRoutes } from './sync-reads.ts';
import { userLibraryRoutes } from './user-library.ts';
import { usersRoutes } from './users.ts';

export const TRAKT_ROUTES: readonly TraktRoute[] = [
  ...oauthRoutes,
  ...scrobbleRoutes,
  ...syncPlaybackRoutes,
  ...syncRoutes,
  ...syncReadRoutes,
  ...userLibraryRoutes,
  ...usersRoutes,
  ...mediaRoutes,
  ...mediaUserRoutes,
  ...searchRoutes,
];
