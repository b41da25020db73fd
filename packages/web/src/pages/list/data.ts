// The List page's data: one infinite query whose first page is the list's detail (with its first items)
// and whose next pages are more items, and the optimistic changes made to it. A change shows at once,
// is sent after the list's earlier changes (one scope per list, so a reorder never overtakes a remove),
// and is undone with the service's message if the service refuses it; the list is read again once the
// last pending change of the list has settled.
import { useInfiniteQuery, useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { api, type PlatformOutputs } from '../../api.ts';
import { errorText } from '../../errors.ts';
import { listKeys } from '../../ui/list-keys.ts';
import { useToast } from '../../ui/toast.tsx';

type Detail = PlatformOutputs['lists']['get'];
export type ListInfo = Omit<Detail, 'items' | 'itemsNextCursor'>;
export type ListItem = Detail['items'][number];
type ListPage = { list: ListInfo | null; items: ListItem[]; nextCursor: string | undefined };
export type ListData = InfiniteData<ListPage, unknown>;

/** Items per page: the service's largest, so most lists arrive whole and reorder as a whole. */
const PAGE_SIZE = 100;

export function useListData(id: number) {
  return useInfiniteQuery({
    queryKey: listKeys.detail(id),
    queryFn: async ({ pageParam }): Promise<ListPage> => {
      if (!pageParam) {
        const { items, itemsNextCursor, ...list } = await api.platform.lists.get.query({ id, itemsLimit: PAGE_SIZE });
        return { list, items, nextCursor: itemsNextCursor };
      }
      const page = await api.platform.lists.items.query({ id, cursor: pageParam, limit: PAGE_SIZE });
      return { list: null, items: page.items, nextCursor: page.nextCursor };
    },
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor,
    staleTime: 0,
  });
}

export const listOf = (data: ListData): ListInfo => data.pages[0]!.list!;
export const itemsOf = (data: ListData): ListItem[] => data.pages.flatMap((p) => p.items);

export function withList(data: ListData, change: (list: ListInfo) => ListInfo): ListData {
  return { ...data, pages: data.pages.map((p, i) => (i === 0 && p.list ? { ...p, list: change(p.list) } : p)) };
}

/** The loaded items replaced by `items` (in that order), the pages keeping their sizes as far as they go. */
export function withItems(data: ListData, items: ListItem[]): ListData {
  let at = 0;
  const last = data.pages.length - 1;
  const pages = data.pages.map((p, i) => {
    const take = i === last ? items.length - at : Math.min(p.items.length, items.length - at);
    const page = { ...p, items: items.slice(at, at + take) };
    at += take;
    return page;
  });
  return { ...data, pages };
}

/** The items in the order of `ids` (the ids of every loaded item). */
export function inOrder(data: ListData, ids: readonly number[]): ListData {
  const byId = new Map(itemsOf(data).map((item) => [item.id, item]));
  return withItems(data, ids.map((id) => byId.get(id)!).filter(Boolean));
}

/**
 * A change to the list shown at once: `apply` changes the cached list as the service will, `send` asks
 * the service. Refused: the list as it was and the service's message in a toast.
 */
export function useListChange<V, R>(id: number, send: (v: V) => Promise<R>, apply: (data: ListData, v: V) => ListData, opts: { onSuccess?: (r: R, v: V) => void } = {}) {
  const qc = useQueryClient();
  const toast = useToast();
  const key = listKeys.detail(id);
  const mutationKey = ['list-change', id];
  return useMutation({
    mutationKey,
    scope: { id: `list-${id}` },
    mutationFn: send,
    onMutate: (v: V) => {
      const previous = qc.getQueryData<ListData>(key);
      // Set first, then cancel a read in flight: a cancelled read falls back to the data set by hand.
      if (previous) qc.setQueryData<ListData>(key, apply(previous, v));
      void qc.cancelQueries({ queryKey: key });
      return { previous };
    },
    onError: (err, _v, context) => {
      if (context?.previous) qc.setQueryData(key, context.previous);
      toast(errorText(err), 'error');
    },
    onSuccess: opts.onSuccess,
    onSettled: async () => {
      // The last pending change of this list reads it again; earlier ones would show in-between states.
      if (qc.isMutating({ mutationKey }) > 1) return;
      await Promise.all([qc.invalidateQueries({ queryKey: key }), qc.invalidateQueries({ queryKey: listKeys.mine })]);
    },
  });
}
