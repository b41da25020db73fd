// The routers of the two API surfaces, and the combined router first-party clients call at /trpc.
// `AppRouter` is exported so a TypeScript client gets typed calls (createTRPCClient<AppRouter>).
import { accountProfileRouter } from './routers/account-profile.ts';
import { catalogRouter } from './routers/catalog.ts';
import { collectionRouter } from './routers/collection.ts';
import { communityRouter } from './routers/community.ts';
import { connectedAppsRouter } from './routers/connected-apps.ts';
import { exportRouter } from './routers/export.ts';
import { historyRouter } from './routers/history.ts';
import { listsRouter } from './routers/lists.ts';
import { meRouter } from './routers/me.ts';
import { notificationsRouter } from './routers/notifications.ts';
import { playbackRouter } from './routers/playback.ts';
import { profileRouter } from './routers/profile.ts';
import { pushDevicesRouter } from './routers/push-devices.ts';
import { ratingsRouter } from './routers/ratings.ts';
import { syncRouter } from './routers/sync.ts';
import { titlesRouter } from './routers/titles.ts';
import { trophiesRouter } from './routers/trophies.ts';
import { usersRouter } from './routers/users.ts';
import { webhooksRouter } from './routers/webhooks.ts';
import { router } from './trpc.ts';

/** Served at /api/public/v1 (no authentication). */
export const publicRouter = router({
  catalog: catalogRouter,
  users: usersRouter,
  community: communityRouter,
});

/** Served at /api/platform/v1 (bearer tokens with the scope each procedure declares). */
export const platformRouter = router({
  me: meRouter,
  connectedApps: connectedAppsRouter,
  titles: titlesRouter,
  history: historyRouter,
  ratings: ratingsRouter,
  profile: profileRouter,
  accountProfile: accountProfileRouter,
  pushDevices: pushDevicesRouter,
  lists: listsRouter,
  collection: collectionRouter,
  sync: syncRouter,
  playback: playbackRouter,
  notifications: notificationsRouter,
  trophies: trophiesRouter,
  export: exportRouter,
  webhooks: webhooksRouter,
});

export const appRouter = router({
  public: publicRouter,
  platform: platformRouter,
});

export type AppRouter = typeof appRouter;
