// The history page's two changes, both optimistic: "Save" of a new date moves the entry at once, "Confirm
// delete" takes it out at once; a refusal puts every page of the list back as it was and says why.
import { useMutation, type InfiniteData, type QueryKey } from '@tanstack/react-query';
import { api, queryClient, type PlatformOutputs } from '../api.ts';
import { errorText } from '../errors.ts';
import { useToast } from '../ui/toast.tsx';

type HistoryPage = PlatformOutputs['history']['list'];
type Pages = InfiniteData<HistoryPage, string | undefined>;

/** Every history read (this list, the home page's recent watches) is refreshed after a change. */
const HISTORY = ['history'] as const;

function useOptimistic<V extends { id: number }>(key: QueryKey, call: (v: V) => Promise<unknown>, change: (page: HistoryPage, v: V) => HistoryPage) {
  const toast = useToast();
  return useMutation({
    mutationFn: call,
    onMutate: async (v: V) => {
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData<Pages>(key);
      if (before) queryClient.setQueryData<Pages>(key, { ...before, pages: before.pages.map((p) => change(p, v)) });
      return { before };
    },
    onError: (err, _v, context) => {
      if (context?.before) queryClient.setQueryData(key, context.before);
      toast(errorText(err), 'error');
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: HISTORY }),
  });
}

export function useHistoryChanges(key: QueryKey) {
  const edit = useOptimistic<{ id: number; watchedAt: string }>(
    key,
    (v) => api.platform.history.edit.mutate(v),
    (page, v) => ({ ...page, items: page.items.map((e) => (e.id === v.id ? { ...e, watchedAt: v.watchedAt } : e)) }),
  );
  const remove = useOptimistic<{ id: number }>(
    key,
    (v) => api.platform.history.remove.mutate(v),
    (page, v) => ({ ...page, items: page.items.filter((e) => e.id !== v.id) }),
  );
  return { edit, remove };
}
