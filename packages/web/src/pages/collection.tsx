// Collection: the copies the user owns, newest first, one card per title with the formats (and seasons)
// owned, filtered by type by the service, a page at a time. "Remove {name} from collection" takes every
// copy of the title away at once and puts them back with the service's message if it refuses.
import { useInfiniteQuery, useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useLayoutEffect, useRef } from 'react';
import { api, type PlatformOutputs } from '../api.ts';
import { errorText } from '../errors.ts';
import { imageUrl } from '../ui/images.ts';
import { LoadMore } from '../ui/load-more.tsx';
import { Page } from '../ui/page.tsx';
import { SignedIn } from '../ui/signed-in.tsx';
import { Empty, ErrorNote, Loading } from '../ui/states.tsx';
import { TitleCard } from '../ui/title-link.tsx';
import { useToast } from '../ui/toast.tsx';
import { filterLabel, TypeFilter, useTitleFilter, type TitleFilter } from '../ui/type-filter.tsx';

type CollectionPage = PlatformOutputs['collection']['list'];
type Copy = CollectionPage['items'][number];
type Data = InfiniteData<CollectionPage, string>;

const PAGE_SIZE = 100;
const KEY = ['collection-page'] as const;

const FORMATS: Record<Copy['format'], string> = {
  uhd_bluray: '4K Blu-ray',
  bluray: 'Blu-ray',
  hd_dvd: 'HD DVD',
  dvd: 'DVD',
  digital: 'Digital',
  vhs: 'VHS',
  laserdisc: 'LaserDisc',
};

/** A title and the copies of it owned (in the order they came: newest first). */
type Owned = { key: string; first: Copy; copies: Copy[] };

function byTitle(copies: Copy[]): Owned[] {
  const titles = new Map<string, Owned>();
  for (const c of copies) {
    const key = `${c.type}-${c.movieDbId}`;
    const t = titles.get(key);
    if (t) t.copies.push(c);
    else titles.set(key, { key, first: c, copies: [c] });
  }
  return [...titles.values()];
}

const copyLabel = (c: Copy) => (c.season > 0 ? `${FORMATS[c.format]} (season ${c.season})` : FORMATS[c.format]);
const kind = (c: Copy) => (c.isAnime ? 'Anime' : c.type === 'movie' ? 'Movie' : 'Show');

export default function CollectionPage() {
  return (
    <Page title="Collection">
      <SignedIn what="your collection">
        <CollectionView />
      </SignedIn>
    </Page>
  );
}

function useCollection(filter: TitleFilter | null) {
  return useInfiniteQuery({
    queryKey: [...KEY, filter ?? 'all'],
    queryFn: ({ pageParam }) => api.platform.collection.list.query({ limit: PAGE_SIZE, ...(filter ? { type: filter } : {}), ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor,
    staleTime: 0,
  });
}

/** Removes every copy of a title; shown at once in every filter's pages, put back if the service refuses. */
function useRemoveTitle() {
  const qc = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationKey: ['collection-remove'],
    scope: { id: 'collection' },
    mutationFn: (owned: Owned) => Promise.all(owned.copies.map((c) => api.platform.collection.remove.mutate({ id: c.id }))),
    onMutate: (owned) => {
      const ids = new Set(owned.copies.map((c) => c.id));
      const previous = qc.getQueriesData<Data>({ queryKey: KEY });
      qc.setQueriesData<Data>({ queryKey: KEY }, (d) => d && { ...d, pages: d.pages.map((p) => ({ ...p, items: p.items.filter((c) => !ids.has(c.id)) })) });
      void qc.cancelQueries({ queryKey: KEY });
      return { previous };
    },
    onError: (err, _owned, context) => {
      for (const [key, data] of context?.previous ?? []) qc.setQueryData(key, data);
      toast(errorText(err), 'error');
    },
    onSettled: async () => {
      if (qc.isMutating({ mutationKey: ['collection-remove'] }) > 1) return;
      await qc.invalidateQueries({ queryKey: KEY });
    },
  });
}

function CollectionView() {
  const [filter, setFilter] = useTitleFilter();
  const query = useCollection(filter);
  const remove = useRemoveTitle();
  const focusNext = useRef<string | null>(null);
  useLayoutEffect(() => {
    if (!focusNext.current) return;
    document.querySelector<HTMLElement>(focusNext.current)?.focus();
    focusNext.current = null;
  });

  let body;
  if (query.isPending) body = <Loading label="Loading your collection" />;
  else if (query.isError && !query.data) body = <ErrorNote error={query.error} onRetry={() => void query.refetch()} />;
  else {
    const titles = byTitle(query.data.pages.flatMap((p) => p.items));
    body = titles.length ? (
      <ul className="poster-grid library-grid" aria-label="Collection">
        {titles.map((owned, index) => {
          const t = owned.first;
          return (
            <li key={owned.key}>
              <TitleCard title={{ ...t, name: t.title, posterUrl: imageUrl(t.posterPath) }} caption={[t.year > 0 ? String(t.year) : null, kind(t)].filter(Boolean).join(' · ')} />
              <ul className="formats" aria-label={`Formats of ${t.title}`}>
                {owned.copies.map((c) => (
                  <li key={c.id}>{copyLabel(c)}</li>
                ))}
              </ul>
              <button
                type="button"
                id={`collection-remove-${owned.key}`}
                className="secondary library-remove"
                aria-label={`Remove ${t.title} from collection`}
                onClick={() => {
                  const next = titles[index + 1] ?? titles[index - 1];
                  focusNext.current = next ? `#collection-remove-${next.key}` : 'main h1';
                  remove.mutate(owned);
                }}
              >
                Remove
              </button>
            </li>
          );
        })}
      </ul>
    ) : filter ? (
      <Empty>
        <p>No {filterLabel(filter)} in your collection.</p>
        <button type="button" className="secondary" onClick={() => setFilter(null)}>
          Show all
        </button>
      </Empty>
    ) : (
      <Empty>Your collection is empty. Open a title’s page (press / to search) and mark the formats you own, such as Blu-ray or Digital.</Empty>
    );
  }
  return (
    <>
      <div className="library-head">
        <TypeFilter value={filter} onChange={setFilter} />
      </div>
      {body}
      {query.data && <LoadMore query={query} />}
    </>
  );
}
