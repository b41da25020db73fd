// The app's one tRPC client (every call goes to /trpc; calls made in the same tick share one request) and
// its query cache. Pages call `api.<surface>.<router>.<procedure>` inside TanStack Query hooks.
import { createClient, type PlatformOutputs, type PublicOutputs } from '@media-tracking/client';
import { MutationCache, QueryClient } from '@tanstack/react-query';
import { getToken } from './auth.ts';
import { retryable } from './errors.ts';

export const api = createClient({ baseUrl: location.origin, getToken });

// Any change may move figures shown elsewhere (a watch moves history, stats, up next, the title's state):
// after the last of the changes under way settles, what is shown refetches and the rest is marked stale,
// besides what each mutation updates itself. (A refetch while another change is still on its way would
// show the server's state from before it, for a moment; and a fetch under way, a next page say, is left
// to finish rather than cancelled.)
const mutations: MutationCache = new MutationCache({
  onSettled: (_data, _error, _variables, _context, settled) => {
    const others = mutations.getAll().some((m) => m !== settled && m.state.status === 'pending');
    if (!others) void queryClient.invalidateQueries(undefined, { cancelRefetch: false });
  },
});

export const queryClient: QueryClient = new QueryClient({
  mutationCache: mutations,
  defaultOptions: {
    queries: { staleTime: 30_000, retry: (failures, err) => failures < 2 && retryable(err), refetchOnWindowFocus: true },
    mutations: { retry: false },
  },
});

export type { PlatformOutputs, PublicOutputs };
