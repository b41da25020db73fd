// One list: its name, description and facts, "Like" with the like count, its titles, and its
// collaborators. The owner edits, deletes, reorders, removes and invites; a collaborator reorders and
// removes titles; anyone else who can see the list reads it and may like it. The drag and drop code
// (dnd-kit) is part of this page's chunk only.
import { Link } from 'wouter';
import { api } from '../api.ts';
import { errorCode } from '../errors.ts';
import { Page } from '../ui/page.tsx';
import { SignedIn } from '../ui/signed-in.tsx';
import { Empty, ErrorNote, Loading } from '../ui/states.tsx';
import { LoadMore } from '../ui/load-more.tsx';
import { Collaborators } from './list/collaborators.tsx';
import { itemsOf, listOf, useListChange, useListData, withList, type ListData, type ListInfo } from './list/data.ts';
import { ReadOnlyItems, SortableItems } from './list/items.tsx';
import { DeleteList, EditList } from './list/manage.tsx';

export default function ListPage({ id }: { id: string }) {
  const listId = /^[1-9]\d{0,15}$/.test(id) ? Number(id) : null;
  if (listId === null) {
    return (
      <Page title="List not found">
        <NotFound />
      </Page>
    );
  }
  return <ListView id={listId} />;
}

function NotFound() {
  return (
    <Empty>
      <p>There is no such list, or it is private. Its owner can share it with you by inviting you.</p>
      <Link href="/lists" className="button secondary">
        Your lists
      </Link>
    </Empty>
  );
}

function ListView({ id }: { id: number }) {
  const query = useListData(id);
  const list = query.data ? listOf(query.data) : null;
  return (
    <Page title={list?.name ?? 'List'}>
      <SignedIn what="this list">
        {query.isPending ? (
          <Loading label="Loading the list" />
        ) : query.isError && !query.data ? (
          errorCode(query.error) === 'not_found' ? (
            <NotFound />
          ) : (
            <ErrorNote error={query.error} onRetry={() => void query.refetch()} />
          )
        ) : (
          <ListBody data={query.data} query={query} />
        )}
      </SignedIn>
    </Page>
  );
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function ListBody({ data, query }: { data: ListData; query: ReturnType<typeof useListData> }) {
  const list = listOf(data);
  const items = itemsOf(data);
  // Dynamic and external lists are filled by the service; their items refuse writes.
  const filledByService = list.isDynamicList || list.externalSource !== null;
  const mayChangeItems = (list.isOwner || list.isCollaborator) && !filledByService;
  const facts = [
    list.isOwner ? 'Yours' : `By ${list.ownerUsername}`,
    list.isWatchlist ? 'Watchlist' : list.isPublic ? 'Public' : 'Private',
    plural(list.itemCount, 'title', 'titles'),
    list.isCollaborator ? 'You collaborate' : null,
  ].filter(Boolean);
  return (
    <>
      {list.description && <p className="lead list-description">{list.description}</p>}
      <p className="muted">{facts.join(' · ')}</p>
      <div className="actions list-actions">
        <LikeButton list={list} />
        {list.isOwner && !list.externalSource && !list.isWatchlist && <EditList list={list} />}
        {list.isOwner && !list.isWatchlist && <DeleteList list={list} />}
      </div>
      {filledByService && <p className="muted">The service fills this list{list.isDynamicList ? ' from its filters' : ` from ${list.externalSource}`}, so its titles cannot be changed here.</p>}
      <section aria-labelledby="list-titles" className="row-section">
        <h2 id="list-titles" tabIndex={-1}>
          Titles
        </h2>
        {items.length === 0 ? (
          <Empty>
            {mayChangeItems
              ? 'No titles yet. Search for a title (press / ) and add it to this list from its page.'
              : 'This list has no titles yet.'}
          </Empty>
        ) : mayChangeItems ? (
          <SortableItems listId={list.id} data={data} headingId="list-titles" />
        ) : (
          <ReadOnlyItems items={items} />
        )}
        <LoadMore query={query} />
      </section>
      {!list.isWatchlist && (list.isOwner || list.isCollaborator || list.collaborators.length > 0) && <Collaborators list={list} />}
    </>
  );
}

/** "Like" (pressed while the viewer likes the list) and the count beside it, changed at once. */
function LikeButton({ list }: { list: ListInfo }) {
  const like = useListChange(
    list.id,
    (on: boolean) => (on ? api.platform.lists.like.mutate({ id: list.id }) : api.platform.lists.unlike.mutate({ id: list.id })),
    (d, on) => withList(d, (l) => (l.isLiked === on ? l : { ...l, isLiked: on, likeCount: Math.max(0, l.likeCount + (on ? 1 : -1)) })),
  );
  return (
    <span className="like">
      <button type="button" className="secondary" aria-pressed={list.isLiked} onClick={() => like.mutate(!list.isLiked)}>
        <span aria-hidden="true">{list.isLiked ? '♥' : '♡'}</span> Like
      </button>
      <span className="muted" aria-live="polite">
        {plural(list.likeCount, 'like', 'likes')}
      </span>
    </span>
  );
}
