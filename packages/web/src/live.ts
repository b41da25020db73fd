// The signed-in user's live events (the documented subscription, over /trpc): one subscription for the
// whole app while signed in. Each event refreshes what it changes: Continue Watching when a playback
// event arrives from any app, the unread badge when the notification count changes. A refetch it starts
// leaves a fetch under way (a next page, say) to finish rather than cancelling it.
import { useEffect } from 'react';
import { api, queryClient } from './api.ts';
import { useSignedIn } from './ui/signed-in.tsx';

/** Query keys the live events touch (the pages use the same ones). */
export const keys = {
  continueWatching: ['continue-watching'] as const,
  unread: ['notifications', 'unread'] as const,
  notifications: ['notifications', 'inbox'] as const,
};

export function useLiveEvents(): void {
  const signedIn = useSignedIn();
  useEffect(() => {
    if (!signedIn) return;
    const sub = api.platform.playback.events.subscribe(undefined, {
      onData: ({ data }) => {
        const name = (data as { name: string }).name;
        if (name.startsWith('playback.') || name.startsWith('continue_watching.')) {
          void queryClient.invalidateQueries({ queryKey: keys.continueWatching }, { cancelRefetch: false });
        } else if (name === 'notifications.unread') {
          const unread = (data as unknown as { data: { unread: number } }).data.unread;
          queryClient.setQueryData(keys.unread, { unread });
          void queryClient.invalidateQueries({ queryKey: keys.notifications }, { cancelRefetch: false });
        }
      },
      onError: () => {
        // The client reconnects by itself; a revoked session shows as signed out through the token source.
      },
    });
    return () => sub.unsubscribe();
  }, [signedIn]);
}
