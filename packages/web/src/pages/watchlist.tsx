// Watchlist: the titles the user means to watch, as posters in the list's order, filtered by type, each with "Remove {name} from watchlist" (gone at once, back with the
// service's message if it refuses). The service pages the watchlist but does not filter it, so the filter
// applies to the titles loaded so far and "Load more" stays while more follow.
import { useInfiniteQuery, useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useLayoutEffect, useRef } from 'react';
import { api, type PlatformOutputs } from '../api.ts';
import { errorText } from '../errors.ts';
import { imageUrl } from '../ui/images.ts';
import { listKeys } from '../ui/list-keys.ts';
import { LoadMore } from '../ui/load-more.tsx';
import { Page } from '../ui/page.tsx';
import { SignedIn } from '../ui/signed-in.tsx';
import { Empty, ErrorNote, Loading } from '../ui/states.tsx';
import { TitleCard } from '../ui/title-link.tsx';
import { useToast } from '../ui/toast.tsx';
import { filterLabel, passes, TypeFilter, useTitleFilter } from '../ui/type-filter.tsx';

type Watchlist = PlatformOutputs['lists']['watchlist'];
type Item = Watchlist['items'][number];
type Data = InfiniteData<Watchlist, string>;

const PAGE_SIZE = 100;

export default function WatchlistPage() {
  return (
    <Page title="Watchlist">
      <SignedIn what="your watchlist">
        <WatchlistView />
      </SignedIn>
    </Page>
  );
}

const kind = (item: Item) => (item.isAnime ? 'Anime' : item.type === 'movie' ? 'Movie' : 'Show');

function WatchlistView() {
  const [filter, setFilter] = useTitleFilter();
  const qc = useQueryClient();
  const toast = useToast();
  const focusNext = useRef<string | null>(null);
  useLayoutEffect(() => {
    if (!focusNext.current) return;
    document.querySelector<HTMLElement>(focusNext.current)?.focus();
    focusNext.current = null;
  });
  const query = useInfiniteQuery({
    queryKey: listKeys.watchlist,
    queryFn: ({ pageParam }) => api.platform.lists.watchlist.query({ itemsLimit: PAGE_SIZE, ...(pageParam ? { itemsCursor: pageParam } : {}) }),
    initialPageParam: '',
    getNextPageParam: (last) => last.itemsNextCursor,
    staleTime: 0,
  });
  const remove = useMutation({
    mutationKey: ['watchlist-remove'],
    scope: { id: 'watchlist' },
    mutationFn: (item: Item) => api.platform.lists.removeItem.mutate({ id: query.data!.pages[0]!.id, itemId: item.id }),
    onMutate: (item) => {
      const previous = qc.getQueryData<Data>(listKeys.watchlist);
      if (previous) {
        qc.setQueryData<Data>(listKeys.watchlist, {
          ...previous,
          pages: previous.pages.map((p) => ({ ...p, items: p.items.filter((i) => i.id !== item.id), itemCount: Math.max(0, p.itemCount - 1) })),
        });
      }
      void qc.cancelQueries({ queryKey: listKeys.watchlist });
      return { previous };
    },
    onError: (err, _item, context) => {
      if (context?.previous) qc.setQueryData(listKeys.watchlist, context.previous);
      toast(errorText(err), 'error');
    },
    onSettled: async () => {
      if (qc.isMutating({ mutationKey: ['watchlist-remove'] }) > 1) return;
      await qc.invalidateQueries({ queryKey: listKeys.all });
    },
  });

  if (query.isPending) return <Loading label="Loading your watchlist" />;
  if (query.isError && !query.data) return <ErrorNote error={query.error} onRetry={() => void query.refetch()} />;
  const all = query.data.pages.flatMap((p) => p.items);
  const shown = all.filter((i) => passes(filter, i));
  const total = query.data.pages[0]!.itemCount;
  if (!all.length && !query.hasNextPage) {
    return <Empty>Your watchlist is empty. Search for a title (press / ) and choose “Add to watchlist” on its page.</Empty>;
  }
  return (
    <>
      <div className="library-head">
        <TypeFilter value={filter} onChange={setFilter} />
        <p className="muted">
          {total === 1 ? '1 title' : `${total} titles`}
        </p>
      </div>
      {shown.length ? (
        <ul className="poster-grid library-grid" aria-label="Watchlist">
          {shown.map((item, index) => (
            <li key={item.id}>
              <TitleCard title={{ ...item, name: item.title, posterUrl: imageUrl(item.posterPath) }} caption={[item.releaseDate?.slice(0, 4), kind(item)].filter(Boolean).join(' · ')} />
              <button
                type="button"
                id={`watchlist-remove-${item.id}`}
                className="secondary library-remove"
                aria-label={`Remove ${item.title} from watchlist`}
                onClick={() => {
                  const next = shown[index + 1] ?? shown[index - 1];
                  focusNext.current = next ? `#watchlist-remove-${next.id}` : 'main h1';
                  remove.mutate(item);
                }}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <Empty>
          <p>No {filter ? filterLabel(filter) : 'titles'} on your watchlist{query.hasNextPage ? ' among the titles loaded so far' : ''}.</p>
          <button type="button" className="secondary" onClick={() => setFilter(null)}>
            Show all
          </button>
        </Empty>
      )}
      <LoadMore query={query} />
    </>
  );
}
