// The title in the person's lists: the watchlist toggle, and "Add to list": a toggle per list they can
// add to (pressed when the title is in it) and a field to make a new list with the title in it.
import { useId, useState } from 'react';
import { Link } from 'wouter';
import { api } from '../../api.ts';
import { detailPatch, pendingId, useOptimistic, type Detail, type TitleRef } from './data.ts';

type UserList = NonNullable<Detail['userLists']>[number];

const setContains = (d: Detail, listId: number, itemId: number | null): Detail => ({
  ...d,
  userLists: d.userLists?.map((l) => (l.id === listId ? { ...l, containsItemId: itemId, itemCount: Math.max(0, l.itemCount + (itemId === null ? -1 : 1)) } : l)) ?? null,
});

/** A list as the page shows it before the service has made it. */
function draftList(name: string, isWatchlist: boolean): UserList {
  return {
    id: pendingId(),
    name,
    description: null,
    isPublic: false,
    isWatchlist,
    isDynamicList: false,
    isCollaborative: false,
    isFeatured: false,
    lastSyncedAt: null,
    ownerUsername: null,
    itemCount: 1,
    itemBreakdown: { movies: 0, shows: 0, anime: 0 },
    createdAt: new Date().toISOString(),
    previewPosters: [],
    containsItemId: pendingId(),
  };
}

/** The watchlist is written by title (it is made on first use, so the page may not know its id yet). */
async function setWatchlisted(t: TitleRef, on: boolean): Promise<void> {
  const res = await api.platform.sync.watchlist.mutate({ items: [{ movie_db_id: t.movieDbId, type: t.type, ...(on ? {} : { remove: true }) }] });
  const item = res.results[0];
  if (item && (item.status === 'invalid' || item.status === 'deferred')) throw new Error(item.error ?? 'The watchlist could not be changed. Try again.');
}

function WatchlistToggle({ titleRef, detail }: { titleRef: TitleRef; detail: Detail }) {
  const on = detail.userLists?.some((l) => l.isWatchlist && l.containsItemId !== null) ?? false;
  const change = useOptimistic(
    titleRef,
    (v: { on: boolean }) => setWatchlisted(titleRef, v.on),
    () => [
      detailPatch(titleRef, (d, v: { on: boolean }) => {
        const lists = d.userLists ?? [];
        const watchlist = lists.find((l) => l.isWatchlist);
        if (watchlist) return setContains(d, watchlist.id, v.on ? pendingId() : null);
        return v.on ? { ...d, userLists: [...lists, draftList('Watchlist', true)] } : d;
      }),
    ],
  );
  return (
    <button type="button" className="secondary" aria-pressed={on} onClick={() => change.mutate({ on: !on })}>
      <span aria-hidden="true">{on ? '✓' : '+'}</span> Add to watchlist
    </button>
  );
}

async function addToList(listId: number, t: TitleRef): Promise<void> {
  const res = await api.platform.lists.addItems.mutate({ id: listId, items: [t] });
  if (res.results[0]?.status === 'not_found') throw new Error('This title is not in the catalog any more.');
}

function ListToggles({ titleRef, lists }: { titleRef: TitleRef; lists: UserList[] }) {
  const change = useOptimistic(
    titleRef,
    (v: { list: UserList; on: boolean }) => (v.on ? addToList(v.list.id, titleRef) : api.platform.lists.removeItem.mutate({ id: v.list.id, itemId: v.list.containsItemId! })),
    () => [detailPatch(titleRef, (d, v: { list: UserList; on: boolean }) => setContains(d, v.list.id, v.on ? pendingId() : null))],
  );
  if (!lists.length) return <p className="muted">You have no lists yet: make one below.</p>;
  return (
    <ul className="list-toggles" aria-label="Your lists">
      {lists.map((list) => {
        const on = list.containsItemId !== null;
        // A list or an item the service has not confirmed yet has no id to write to: wait for it.
        const waiting = list.id < 0 || (on && list.containsItemId! < 0);
        return (
          <li key={list.id}>
            <button type="button" className="secondary" aria-pressed={on} aria-disabled={waiting || undefined} onClick={() => !waiting && change.mutate({ list, on: !on })}>
              <span aria-hidden="true">{on ? '✓' : '+'}</span> {list.name}
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function NewList({ titleRef }: { titleRef: TitleRef }) {
  const [name, setName] = useState('');
  const id = useId();
  const create = useOptimistic(
    titleRef,
    async (v: { name: string }) => {
      const list = await api.platform.lists.create.mutate({ name: v.name });
      await addToList(list.id, titleRef);
    },
    () => [detailPatch(titleRef, (d, v: { name: string }) => ({ ...d, userLists: [...(d.userLists ?? []), draftList(v.name, false)] }))],
  );
  return (
    <form
      className="actions new-list"
      onSubmit={(e) => {
        e.preventDefault();
        const trimmed = name.trim();
        if (!trimmed) return;
        create.mutate({ name: trimmed });
        setName('');
      }}
    >
      <div className="field">
        <label htmlFor={id}>New list name</label>
        <input id={id} type="text" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      <button type="submit" className="secondary">
        Create list and add
      </button>
    </form>
  );
}

export function TitleLists({ titleRef, detail }: { titleRef: TitleRef; detail: Detail }) {
  const lists = (detail.userLists ?? []).filter((l) => !l.isWatchlist && !l.isDynamicList);
  const inLists = lists.filter((l) => l.containsItemId !== null).length;
  return (
    <div className="title-lists">
      <div className="actions">
        <WatchlistToggle titleRef={titleRef} detail={detail} />
      </div>
      <details className="disclosure">
        <summary>Add to list{inLists > 0 ? ` (in ${inLists})` : ''}</summary>
        <ListToggles titleRef={titleRef} lists={lists} />
        <NewList titleRef={titleRef} />
        <p className="muted">
          See and arrange <Link href="/lists">all your lists</Link>.
        </p>
      </details>
    </div>
  );
}
