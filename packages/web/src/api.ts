// The app's one tRPC client (every call goes to /trpc; calls made in the same tick share one request) and
// its query cache. Pages call `api.<surface>.<router>.<procedure>` inside TanStack Query hooks.
import { createClient, type PlatformOutputs, type PublicOutputs } from '@media-tracking/client';
import { MutationCache, QueryClient } from '@tanstack/react-query';
import { getToken } from './auth.ts';
import { retryable } from './errors.ts';

export const api = createClient({ baseUrl: location.origin, getToken });

// Any change may move figures shown elsewhere (a watch moves history, stats, up next, the title's state):
// after every mutation, what is shown refetches and the rest is marked stale, besides what each
// mutation updates itself.
export const queryClient: QueryClient = new QueryClient({
  mutationCache: new MutationCache({ onSettled: () => queryClient.invalidateQueries() }),
  defaultOptions: {
    queries: { staleTime: 30_000, retry: (failures, err) => failures < 2 && retryable(err), refetchOnWindowFocus: true },
    mutations: { retry: false },
  },
});

export type { PlatformOutputs, PublicOutputs };
