// A list's items in order: poster, name (to the title's page) and facts. Someone who may change the items
// (the owner or a collaborator, on a list that is not filled by the service) reorders them by drag and
// drop (dnd-kit: a pointer on the handle, or the keyboard on it: Space picks up, the arrows move, Space
// drops, Escape cancels, each step announced), by "Move {name} up" / "Move {name} down", and removes them
// with "Remove {name}". Every change is sent as the order of the loaded items (the service puts the ones
// it is given first and keeps the rest after them, so a partly loaded list reorders correctly).
import {
  closestCenter, DndContext, KeyboardSensor, PointerSensor, useSensor, useSensors, type Announcements, type DragEndEvent, type UniqueIdentifier,
} from '@dnd-kit/core';
import { arrayMove, SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { useLayoutEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { api } from '../../api.ts';
import { imageUrl } from '../../ui/images.ts';
import { Poster } from '../../ui/poster.tsx';
import { titlePath } from '../../ui/title-link.tsx';
import { inOrder, itemsOf, useListChange, withItems, withList, type ListData, type ListItem } from './data.ts';

const INSTRUCTIONS =
  'To move a title, press Space on its handle to pick it up, the up and down arrow keys to move it, Space again to drop it, or Escape to cancel. The Move up and Move down buttons move it one place.';

const kind = (item: ListItem) => (item.isAnime ? 'Anime' : item.type === 'movie' ? 'Movie' : 'Show');

function ItemSummary({ item }: { item: ListItem }) {
  const year = item.releaseDate ? item.releaseDate.slice(0, 4) : null;
  return (
    <>
      <Poster title={{ name: item.title, posterUrl: imageUrl(item.posterPath) }} size="sm" />
      <span className="list-item-text">
        <Link href={titlePath(item)} className="list-item-name">
          {item.title}
        </Link>
        <span className="muted list-item-facts">{[year, kind(item), item.watched ? 'Watched' : null].filter(Boolean).join(' · ')}</span>
      </span>
    </>
  );
}

/** The items as they are, for someone who may not change them. */
export function ReadOnlyItems({ items }: { items: ListItem[] }) {
  return (
    <ol className="list-items" aria-label="Titles">
      {items.map((item) => (
        <li key={item.id} className="list-item">
          <ItemSummary item={item} />
        </li>
      ))}
    </ol>
  );
}

type RowProps = { item: ListItem; index: number; count: number; onMove: (item: ListItem, to: number, focus: 'up' | 'down') => void; onRemove: (item: ListItem) => void };

// Rows glide to their new places unless the person asked the system for less motion.
const reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches;

function SortableRow({ item, index, count, onMove, onRemove }: RowProps) {
  const still = reducedMotion();
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: item.id,
    ...(still ? { transition: null, animateLayoutChanges: () => false } : {}),
  });
  const first = index === 0;
  const last = index === count - 1;
  return (
    <li ref={setNodeRef} className={isDragging ? 'list-item editable dragging' : 'list-item editable'} style={{ transform: CSS.Translate.toString(transform), transition }}>
      <button ref={setActivatorNodeRef} type="button" className="drag-handle secondary" {...attributes} {...listeners} aria-label={`Reorder ${item.title}`}>
        <span aria-hidden="true">⠿</span>
      </button>
      <ItemSummary item={item} />
      <span className="list-item-actions">
        <button
          type="button"
          id={`item-${item.id}-up`}
          className="secondary"
          aria-label={`Move ${item.title} up`}
          aria-disabled={first}
          onClick={() => !first && onMove(item, index - 1, 'up')}
        >
          <span aria-hidden="true">↑</span>
        </button>
        <button
          type="button"
          id={`item-${item.id}-down`}
          className="secondary"
          aria-label={`Move ${item.title} down`}
          aria-disabled={last}
          onClick={() => !last && onMove(item, index + 1, 'down')}
        >
          <span aria-hidden="true">↓</span>
        </button>
        <button type="button" id={`item-${item.id}-remove`} className="danger" aria-label={`Remove ${item.title}`} onClick={() => onRemove(item)}>
          <span aria-hidden="true">✕</span>
        </button>
      </span>
    </li>
  );
}

/** The items of a list the viewer may change. `headingId`: where the focus goes when the last item is removed. */
export function SortableItems({ listId, data, headingId }: { listId: number; data: ListData; headingId: string }) {
  const items = itemsOf(data);
  const [said, setSaid] = useState('');
  // The control to focus once a change has re-rendered the rows (a moved row's DOM node may be re-inserted, which drops focus).
  const focusNext = useRef<string | null>(null);
  useLayoutEffect(() => {
    if (!focusNext.current) return;
    document.getElementById(focusNext.current)?.focus();
    focusNext.current = null;
  });

  const reorder = useListChange(listId, (ids: number[]) => api.platform.lists.reorder.mutate({ id: listId, itemIds: ids }), (d, ids) => inOrder(d, ids));
  const remove = useListChange(
    listId,
    (item: ListItem) => api.platform.lists.removeItem.mutate({ id: listId, itemId: item.id }),
    (d, item) => withList(withItems(d, itemsOf(d).filter((i) => i.id !== item.id)), (l) => ({ ...l, itemCount: Math.max(0, l.itemCount - 1) })),
  );

  const total = listOfCount(data, items.length);
  const position = (id: UniqueIdentifier) => items.findIndex((i) => i.id === id) + 1;
  const nameOf = (id: UniqueIdentifier) => items.find((i) => i.id === id)?.title ?? 'The title';

  const moveTo = (item: ListItem, to: number) => {
    const from = items.findIndex((i) => i.id === item.id);
    if (from < 0 || to < 0 || to >= items.length || from === to) return;
    reorder.mutate(arrayMove(items, from, to).map((i) => i.id));
    setSaid(`${item.title} moved to position ${to + 1} of ${total}.`);
  };

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  // dnd-kit reports the picked-up title over its own place right after the pick-up; saying so would
  // replace "Picked up" before a screen reader reads it, so that report stays silent until it moves.
  const moved = useRef(false);
  const announcements: Announcements = {
    onDragStart: ({ active }) => {
      moved.current = false;
      return `Picked up ${nameOf(active.id)} at position ${position(active.id)} of ${total}.`;
    },
    onDragOver: ({ active, over }) => {
      if (over?.id === active.id && !moved.current) return undefined;
      moved.current = true;
      return over ? `${nameOf(active.id)} is over position ${position(over.id)} of ${total}.` : `${nameOf(active.id)} is no longer over the list.`;
    },
    onDragEnd: ({ active, over }) => (over ? `${nameOf(active.id)} dropped at position ${position(over.id)} of ${total}.` : `${nameOf(active.id)} dropped where it was.`),
    onDragCancel: ({ active }) => `Moving ${nameOf(active.id)} cancelled: it stays at position ${position(active.id)} of ${total}.`,
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    const from = position(active.id) - 1;
    const to = over ? position(over.id) - 1 : -1;
    if (from < 0 || to < 0 || from === to) return;
    reorder.mutate(arrayMove(items, from, to).map((i) => i.id));
  };

  return (
    <>
      <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd} accessibility={{ announcements, screenReaderInstructions: { draggable: INSTRUCTIONS } }}>
        <SortableContext items={items.map((i) => i.id)} strategy={verticalListSortingStrategy}>
          <ol className="list-items" aria-label="Titles">
            {items.map((item, index) => (
              <SortableRow
                key={item.id}
                item={item}
                index={index}
                count={items.length}
                onMove={(it, to, dir) => {
                  focusNext.current = `item-${it.id}-${dir}`;
                  moveTo(it, to);
                }}
                onRemove={(it) => {
                  const next = items[index + 1] ?? items[index - 1];
                  focusNext.current = next ? `item-${next.id}-remove` : headingId;
                  remove.mutate(it);
                  setSaid(`${it.title} removed.`);
                }}
              />
            ))}
          </ol>
        </SortableContext>
      </DndContext>
      <p className="visually-hidden" role="status">
        {said}
      </p>
    </>
  );
}

/** How many items the list has in all (the loaded ones when the count is behind an optimistic change). */
function listOfCount(data: ListData, loaded: number): number {
  return Math.max(loaded, data.pages[0]?.list?.itemCount ?? loaded);
}
