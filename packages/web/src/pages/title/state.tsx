// The person's own marks on a title: a rating from 1 to 10 (or none), the favourite toggle and, for a
// show, its status. Each changes on the page at once and comes back with a message if refused.
import { useId } from 'react';
import { api } from '../../api.ts';
import { detailPatch, useOptimistic, type Detail, type TitleRef } from './data.ts';

const STATUSES = [
  ['planned', 'Planned'],
  ['watching', 'Watching'],
  ['paused', 'Paused'],
  ['completed', 'Completed'],
  ['dropped', 'Dropped'],
] as const;
type Status = (typeof STATUSES)[number][0];

type Interaction = NonNullable<Detail['interaction']>;
const NO_INTERACTION: Interaction = { watchedAt: null, rating: null, isFavourite: false, showStatus: null };

/** The detail with `change` made to the user's interaction with the title. */
const interact = (d: Detail, change: Partial<Interaction>): Detail => ({ ...d, interaction: { ...(d.interaction ?? NO_INTERACTION), ...change } });

/** Removes the rating of the title as a whole (the bulk ratings write names a title; the single delete needs the rating's id). */
async function unrate(t: TitleRef): Promise<void> {
  const res = await api.platform.sync.ratings.mutate({ items: [{ movie_db_id: t.movieDbId, type: t.type, remove: true }] });
  const item = res.results[0];
  if (item && item.status !== 'removed' && item.status !== 'skipped') throw new Error(item.error ?? 'The rating could not be removed. Try again.');
}

function RatingSelect({ titleRef, rating }: { titleRef: TitleRef; rating: number | null }) {
  const id = useId();
  const change = useOptimistic(
    titleRef,
    (v: { rating: number | null }) => (v.rating === null ? unrate(titleRef) : api.platform.ratings.rate.mutate({ ...titleRef, rating: v.rating })),
    () => [detailPatch(titleRef, (d, v: { rating: number | null }) => interact(d, { rating: v.rating }))],
  );
  return (
    <div className="field">
      <label htmlFor={id}>Rating</label>
      <select id={id} value={rating === null ? '' : String(Math.round(rating))} onChange={(e) => change.mutate({ rating: e.target.value ? Number(e.target.value) : null })}>
        <option value="">Not rated</option>
        {Array.from({ length: 10 }, (_, i) => i + 1).map((n) => (
          <option key={n} value={n}>
            {n} / 10
          </option>
        ))}
      </select>
    </div>
  );
}

function StatusSelect({ titleRef, status }: { titleRef: TitleRef; status: string | null }) {
  const id = useId();
  const change = useOptimistic(
    titleRef,
    (v: { status: Status | null }) => (v.status === null ? api.platform.ratings.clearStatus.mutate(titleRef) : api.platform.ratings.setStatus.mutate({ ...titleRef, status: v.status })),
    () => [detailPatch(titleRef, (d, v: { status: Status | null }) => interact(d, { showStatus: v.status }))],
  );
  return (
    <div className="field">
      <label htmlFor={id}>Show status</label>
      <select id={id} value={status ?? ''} onChange={(e) => change.mutate({ status: (e.target.value || null) as Status | null })}>
        <option value="">No status</option>
        {STATUSES.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

function FavouriteToggle({ titleRef, on }: { titleRef: TitleRef; on: boolean }) {
  const change = useOptimistic(
    titleRef,
    (v: { on: boolean }) => (v.on ? api.platform.ratings.favourite.mutate(titleRef) : api.platform.ratings.unfavourite.mutate(titleRef)),
    () => [detailPatch(titleRef, (d, v: { on: boolean }) => interact(d, { isFavourite: v.on }))],
  );
  return (
    <button type="button" className="secondary" aria-pressed={on} onClick={() => change.mutate({ on: !on })}>
      <span aria-hidden="true">{on ? '♥' : '♡'}</span> Favourite
    </button>
  );
}

export function TitleState({ titleRef, detail }: { titleRef: TitleRef; detail: Detail }) {
  const i = detail.interaction ?? NO_INTERACTION;
  return (
    <div className="title-state">
      <RatingSelect titleRef={titleRef} rating={i.rating} />
      {titleRef.type === 'show' && <StatusSelect titleRef={titleRef} status={i.showStatus} />}
      <div className="actions">
        <FavouriteToggle titleRef={titleRef} on={i.isFavourite} />
      </div>
    </div>
  );
}
