// The routers of the two API surfaces, and the combined router first-party clients call at /trpc.
// `AppRouter` is exported so a TypeScript client gets typed calls (createTRPCClient<AppRouter>).
import { catalogRouter } from './routers/catalog.ts';
import { collectionRouter } from './routers/collection.ts';
import { connectedAppsRouter } from './routers/connected-apps.ts';
import { libraryRouter } from './routers/library.ts';
import { listsRouter } from './routers/lists.ts';
import { meRouter } from './routers/me.ts';
import { playbackRouter } from './routers/playback.ts';
import { syncRouter } from './routers/sync.ts';
import { router } from './trpc.ts';

/** Served at /api/public/v1 (no authentication). */
export const publicRouter = router({
  catalog: catalogRouter,
});

/** Served at /api/platform/v1 (bearer tokens with the scope each procedure declares). */
export const platformRouter = router({
  me: meRouter,
  connectedApps: connectedAppsRouter,
  library: libraryRouter,
  lists: listsRouter,
  collection: collectionRouter,
  sync: syncRouter,
  playback: playbackRouter,
});

export const appRouter = router({
  public: publicRouter,
  platform: platformRouter,
});

export type AppRouter = typeof appRouter;
