// The routers of the two API surfaces, and the combined router first-party clients call at /trpc.
// `AppRouter` is exported so a TypeScript client gets typed calls (createTRPCClient<AppRouter>).
import { catalogRouter } from './routers/catalog.ts';
import { router } from './trpc.ts';

/** Served at /api/public/v1 (no authentication). */
export const publicRouter = router({
  catalog: catalogRouter,
});

/** Served at /api/platform/v1 (bearer tokens; procedures arrive with the OAuth and library modules). */
export const platformRouter = router({});

export const appRouter = router({
  public: publicRouter,
  platform: platformRouter,
});

export type AppRouter = typeof appRouter;
