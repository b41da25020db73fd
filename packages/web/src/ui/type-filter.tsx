// "Show": all titles, movies, shows or anime, as a row of toggle buttons (the pressed one is the filter).
// The filter lives in the URL (?type=anime), so a filtered page can be shared and reloaded. Movies and
// shows leave anime out; anime is anime of either type (the collection's `type` filter works the same).
import { useSearchParams } from 'wouter';

export type TitleFilter = 'movie' | 'show' | 'anime';

const OPTIONS: [TitleFilter | null, string][] = [
  [null, 'All'],
  ['movie', 'Movies'],
  ['show', 'Shows'],
  ['anime', 'Anime'],
];

export const filterLabel = (f: TitleFilter) => ({ movie: 'movies', show: 'shows', anime: 'anime' })[f];

export function useTitleFilter(): [TitleFilter | null, (f: TitleFilter | null) => void] {
  const [params, setParams] = useSearchParams();
  const raw = params.get('type');
  const filter = raw === 'movie' || raw === 'show' || raw === 'anime' ? raw : null;
  return [filter, (f) => setParams(f ? { type: f } : {}, { replace: true })];
}

/** Whether a title with these facts passes `filter`. */
export function passes(filter: TitleFilter | null, t: { type: 'movie' | 'show'; isAnime: boolean }): boolean {
  if (!filter) return true;
  return filter === 'anime' ? t.isAnime : !t.isAnime && t.type === filter;
}

export function TypeFilter({ value, onChange }: { value: TitleFilter | null; onChange: (f: TitleFilter | null) => void }) {
  return (
    <div className="type-filter" role="group" aria-label="Show">
      {OPTIONS.map(([f, label]) => (
        <button key={label} type="button" className="secondary" aria-pressed={value === f} onClick={() => onChange(f)}>
          {label}
        </button>
      ))}
    </div>
  );
}
