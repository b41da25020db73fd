// Which copies of the title the person owns: one toggle per format the collection knows, for the whole
// title (a season's copies show as owned too, and are kept as they are).
import type { PlatformInputs } from '@media-tracking/client';
import { api } from '../../api.ts';
import { detailPatch, pendingId, useOptimistic, type Detail, type TitleRef } from './data.ts';

type Format = PlatformInputs['collection']['add']['format'];

/** In the order the title detail lists them. */
const FORMATS: [Format, string][] = [
  ['uhd_bluray', '4K Ultra HD Blu-ray'],
  ['bluray', 'Blu-ray'],
  ['hd_dvd', 'HD DVD'],
  ['dvd', 'DVD'],
  ['digital', 'Digital'],
  ['vhs', 'VHS'],
  ['laserdisc', 'LaserDisc'],
];

type Status = NonNullable<Detail['collectionStatus']>;
const EMPTY: Status = { owned: false, formats: [], items: [] };

function withItems(d: Detail, items: Status['items']): Detail {
  const formats = FORMATS.map(([f]) => f).filter((f) => items.some((i) => i.format === f));
  return { ...d, collectionStatus: { owned: items.length > 0, formats, items } };
}

export function CollectionFormats({ titleRef, detail }: { titleRef: TitleRef; detail: Detail }) {
  const status = detail.collectionStatus ?? EMPTY;
  const change = useOptimistic(
    titleRef,
    (v: { format: Format; itemId: number | null }) => (v.itemId === null ? api.platform.collection.add.mutate({ ...titleRef, format: v.format }) : api.platform.collection.remove.mutate({ id: v.itemId })),
    () => [
      detailPatch(titleRef, (d, v: { format: Format; itemId: number | null }) => {
        const items = (d.collectionStatus ?? EMPTY).items;
        return withItems(d, v.itemId === null ? [...items, { id: pendingId(), format: v.format, season: 0 }] : items.filter((i) => i.id !== v.itemId));
      }),
    ],
  );
  return (
    <fieldset className="collection-formats">
      <legend>In your collection</legend>
      <ul className="format-toggles">
        {FORMATS.map(([format, label]) => {
          const whole = status.items.find((i) => i.format === format && i.season === 0);
          const seasons = status.items.filter((i) => i.format === format && i.season > 0).map((i) => i.season);
          const waiting = whole !== undefined && whole.id < 0;
          return (
            <li key={format}>
              <button
                type="button"
                className="secondary"
                aria-pressed={whole !== undefined}
                aria-disabled={waiting || undefined}
                onClick={() => !waiting && change.mutate({ format, itemId: whole?.id ?? null })}
              >
                <span aria-hidden="true">{whole ? '✓' : '+'}</span> <span className="visually-hidden">In collection: </span>
                {label}
              </button>
              {seasons.length > 0 && <span className="muted"> Seasons {seasons.join(', ')}</span>}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
