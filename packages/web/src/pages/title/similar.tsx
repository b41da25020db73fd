// Titles like this one (same type, most shared genres, then popularity), as a grid of cards.
import { TitleCard } from '../../ui/title-link.tsx';
import type { Detail } from './data.ts';

export function SimilarTitles({ detail }: { detail: Detail }) {
  const similar = detail.title.recommendations ?? [];
  if (!similar.length) return null;
  return (
    <section aria-labelledby="similar" className="similar">
      <h2 id="similar">Similar titles</h2>
      <ul className="poster-grid" aria-label="Similar titles">
        {similar.map((t) => (
          <li key={`${t.type}-${t.movieDbId}`}>
            <TitleCard title={t} caption={t.year > 0 ? String(t.year) : undefined} />
          </li>
        ))}
      </ul>
    </section>
  );
}
