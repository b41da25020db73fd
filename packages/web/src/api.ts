// The app's one tRPC client (every call goes to /trpc; calls made in the same tick share one request) and
// its query cache. Pages call `api.<surface>.<router>.<procedure>` inside TanStack Query hooks.
import { createClient, type PlatformOutputs, type PublicOutputs } from '@media-tracking/client';
import { QueryClient } from '@tanstack/react-query';
import { getToken } from './auth.ts';
import { retryable } from './errors.ts';

export const api = createClient({ baseUrl: location.origin, getToken });

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { staleTime: 30_000, retry: (failures, err) => failures < 2 && retryable(err), refetchOnWindowFocus: true },
    mutations: { retry: false },
  },
});

export type { PlatformOutputs, PublicOutputs };
