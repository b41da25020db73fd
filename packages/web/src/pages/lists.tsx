// Lists: the invitations to collaborate that wait for an answer, a form to make a new list, and the
// user's lists (owned, and shared with them after accepting), a page at a time.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, type PlatformOutputs } from '../api.ts';
import { errorText } from '../errors.ts';
import { imageUrl } from '../ui/images.ts';
import { ListFields, readListFields } from '../ui/list-fields.tsx';
import { listKeys, meKey } from '../ui/list-keys.ts';
import { LoadMore } from '../ui/load-more.tsx';
import { Page } from '../ui/page.tsx';
import { Poster } from '../ui/poster.tsx';
import { SignedIn } from '../ui/signed-in.tsx';
import { Empty, ErrorNote, Loading } from '../ui/states.tsx';
import { useToast } from '../ui/toast.tsx';

const PAGE_SIZE = 50;

type Summary = PlatformOutputs['lists']['mine']['items'][number];
type Invitation = PlatformOutputs['lists']['invitations']['items'][number];

export default function ListsPage() {
  return (
    <Page title="Lists">
      <SignedIn what="your lists">
        <Invitations />
        <NewList />
        <MyLists />
      </SignedIn>
    </Page>
  );
}

const itemCount = (n: number) => (n === 1 ? '1 title' : `${n} titles`);

function ListCard({ list, mine }: { list: Summary; mine: boolean }) {
  const href = list.isWatchlist ? '/watchlist' : `/lists/${list.id}`;
  const facts = [
    itemCount(list.itemCount),
    list.isWatchlist ? 'Watchlist' : list.isPublic ? 'Public' : 'Private',
    list.isDynamicList ? 'Fills itself' : null,
    list.isCollaborative ? 'Shared' : null,
  ].filter(Boolean);
  return (
    <li className="card list-card">
      <div className="list-card-posters" aria-hidden="true">
        {list.previewPosters.length ? (
          list.previewPosters.map((p) => <Poster key={`${p.type}-${p.movieDbId}`} title={{ name: '', posterUrl: imageUrl(p.posterPath) }} size="sm" />)
        ) : (
          <div className="list-card-no-posters" />
        )}
      </div>
      <h3>
        <Link href={href} className="list-card-link">
          {list.name}
        </Link>
      </h3>
      <p className="muted">
        {facts.join(' · ')}
        {!mine && <> · by {list.ownerUsername}</>}
      </p>
    </li>
  );
}

function MyLists() {
  const me = useQuery({ queryKey: meKey, queryFn: () => api.platform.me.get.query(), staleTime: 300_000 });
  const lists = useInfiniteQuery({
    queryKey: listKeys.mine,
    queryFn: ({ pageParam }) => api.platform.lists.mine.query({ limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
    staleTime: 0,
  });
  return (
    <section aria-labelledby="your-lists" className="row-section">
      <h2 id="your-lists" tabIndex={-1}>
        Your lists
      </h2>
      {lists.isPending ? (
        <Loading label="Loading your lists" />
      ) : lists.isError && !lists.data ? (
        <ErrorNote error={lists.error} onRetry={() => void lists.refetch()} />
      ) : lists.data.pages[0]?.items.length ? (
        <>
          <ul className="list-cards" aria-label="Your lists">
            {lists.data.pages.flatMap((p) => p.items).map((l) => (
              <ListCard key={l.id} list={l} mine={!me.data || l.ownerUsername === me.data.username} />
            ))}
          </ul>
          <LoadMore query={lists} />
        </>
      ) : (
        <Empty>You have no lists yet. Make one with the New list form: give it a name, then add titles to it from their pages.</Empty>
      )}
    </section>
  );
}

function NewList() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const toast = useToast();
  const create = useMutation({
    mutationFn: (v: { name: string; description: string; isPublic: boolean }) => api.platform.lists.create.mutate(v),
    onSuccess: (list) => {
      void qc.invalidateQueries({ queryKey: listKeys.mine });
      toast(`List “${list.name}” made. Add titles to it from their pages.`);
      navigate(`/lists/${list.id}`);
    },
  });
  return (
    <section aria-labelledby="new-list" className="card new-list">
      <h2 id="new-list">New list</h2>
      <form
        aria-labelledby="new-list"
        onSubmit={(e) => {
          e.preventDefault();
          if (create.isPending) return;
          create.mutate(readListFields(e.currentTarget));
        }}
      >
        <ListFields />
        {create.isError && (
          <p className="error" role="alert">
            {errorText(create.error)}
          </p>
        )}
        <p className="actions">
          <button type="submit" className="primary" aria-busy={create.isPending}>
            Create
          </button>
        </p>
      </form>
    </section>
  );
}

function Invitations() {
  const invitations = useQuery({ queryKey: listKeys.invitations, queryFn: () => api.platform.lists.invitations.query(), staleTime: 0 });
  if (invitations.isPending) return null;
  if (invitations.isError) return <ErrorNote error={invitations.error} onRetry={() => void invitations.refetch()} />;
  if (!invitations.data.items.length) return null;
  return (
    <section aria-labelledby="invitations" className="row-section">
      <h2 id="invitations">Invitations</h2>
      <ul className="invitations">
        {invitations.data.items.map((inv) => (
          <InvitationRow key={inv.listId} invitation={inv} />
        ))}
      </ul>
    </section>
  );
}

/**
 * One invitation: "Accept" makes the user a collaborator (the list joins their lists), "Decline" takes
 * the invitation away (the service's leave / decline call, by the user's own name). Either takes the
 * row away at once and puts it back with the service's message if it refuses.
 */
function InvitationRow({ invitation }: { invitation: Invitation }) {
  const qc = useQueryClient();
  const toast = useToast();
  const me = useQuery({ queryKey: meKey, queryFn: () => api.platform.me.get.query(), staleTime: 300_000 });
  const [gone, setGone] = useState(false);
  const answer = useMutation({
    mutationFn: async (accept: boolean) => {
      if (accept) return api.platform.lists.accept.mutate({ id: invitation.listId });
      const username = me.data?.username ?? (await qc.fetchQuery({ queryKey: meKey, queryFn: () => api.platform.me.get.query() })).username;
      return api.platform.lists.removeCollaborator.mutate({ id: invitation.listId, username });
    },
    onMutate: () => {
      setGone(true);
      // The row and its buttons go; the keyboard continues at the lists, where an accepted list appears.
      document.getElementById('your-lists')?.focus();
    },
    onError: (err) => {
      setGone(false);
      toast(errorText(err), 'error');
    },
    onSuccess: (_data, accept) => {
      toast(accept ? `You can now add to “${invitation.name}”.` : `Declined “${invitation.name}”.`);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: listKeys.all }),
  });
  if (gone) return null;
  const textId = `invitation-${invitation.listId}`;
  return (
    <li className="card invitation">
      <p id={textId}>
        <strong>{invitation.ownerUsername}</strong> invites you to add to “{invitation.name}”.
      </p>
      <p className="actions">
        <button type="button" className="primary" aria-describedby={textId} onClick={() => answer.mutate(true)}>
          Accept
        </button>
        <button type="button" className="secondary" aria-describedby={textId} onClick={() => answer.mutate(false)}>
          Decline
        </button>
      </p>
    </li>
  );
}
