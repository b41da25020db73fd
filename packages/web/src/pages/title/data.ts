// The title page's data: one query (the title detail, which carries the user's state, lists, collection
// and similar titles, so the page loads in one round trip), a season's episodes when it is opened, and
// the optimistic change every control makes: the cache changes at once, a refusal puts it back and says
// why, and either way the page then reads the service's state again.
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, queryClient, type PlatformOutputs } from '../../api.ts';
import { errorText } from '../../errors.ts';
import { useToast } from '../../ui/toast.tsx';

export type Detail = PlatformOutputs['titles']['detail'];
export type SeasonDetail = PlatformOutputs['titles']['season'];
export type TitleRef = { type: 'movie' | 'show'; movieDbId: number };

const titleKey = (t: TitleRef) => ['title', t.type, t.movieDbId] as const;
export const seasonKey = (t: TitleRef, season: number) => ['title', t.type, t.movieDbId, 'season', season] as const;

export function useTitleDetail(t: TitleRef) {
  return useQuery({ queryKey: titleKey(t), queryFn: () => api.platform.titles.detail.query({ type: t.type, id: t.movieDbId }) });
}

export function useSeason(t: TitleRef, season: number) {
  return useQuery({ queryKey: seasonKey(t, season), queryFn: () => api.platform.titles.season.query({ id: t.movieDbId, season }) });
}

type Key = readonly unknown[];
/** How a change shows in one cached query before the service answers. */
export type Patch<V> = { key: Key; apply: (data: never, vars: V) => unknown };

/**
 * A change of the user's state: `patches` set the cache at once (each on the query it names), a refusal
 * restores every one and shows the service's reason, and the queries are read again when the last
 * change of the title settles. The changes of one title reach the service one after another, in the
 * order they were made (a quick second click must not overtake the first).
 */
export function useOptimistic<V>(t: TitleRef, mutationFn: (vars: V) => Promise<unknown>, patches: (vars: V) => Patch<V>[]) {
  const toast = useToast();
  const mutationKey = ['title-change', t.type, t.movieDbId];
  return useMutation({
    mutationKey,
    scope: { id: mutationKey.join(':') },
    mutationFn,
    onMutate: async (vars: V) => {
      const list = patches(vars);
      await Promise.all(list.map((p) => queryClient.cancelQueries({ queryKey: p.key })));
      const before = list.map((p) => [p.key, queryClient.getQueryData(p.key)] as const);
      for (const p of list) queryClient.setQueryData(p.key, (data: unknown) => (data === undefined ? data : p.apply(data as never, vars)));
      return { before };
    },
    onError: (err, _vars, context) => {
      for (const [key, data] of context?.before ?? []) queryClient.setQueryData(key, data);
      toast(errorText(err), 'error');
    },
    onSettled: async () => {
      // A read while later changes are still on their way would show the page without them for a moment.
      if (queryClient.isMutating({ mutationKey }) > 1) return;
      await queryClient.invalidateQueries({ queryKey: titleKey(t) });
    },
  });
}

/** A patch of the title detail. */
export const detailPatch = <V>(t: TitleRef, apply: (d: Detail, vars: V) => Detail): Patch<V> => ({ key: titleKey(t), apply: apply as Patch<V>['apply'] });

/** Ids the service has not given yet (an optimistic row) are negative, so no real id is mistaken for one. */
let pending = 0;
export const pendingId = () => --pending;
