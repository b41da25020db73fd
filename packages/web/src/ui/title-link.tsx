// A title as rows and grids show it: its poster and name, linking to its page.
import { Link } from 'wouter';
import { Poster, type PosterTitle } from './poster.tsx';

export type LinkedTitle = PosterTitle & { type: 'movie' | 'show'; movieDbId: number };

export const titlePath = (t: { type: 'movie' | 'show'; movieDbId: number }) => `/title/${t.type}/${t.movieDbId}`;

export function TitleCard({ title, caption }: { title: LinkedTitle; caption?: string | undefined }) {
  return (
    <Link href={titlePath(title)} className="title-card">
      <Poster title={title} />
      <span className="title-card-name">{title.name}</span>
      {caption && <span className="title-card-caption">{caption}</span>}
    </Link>
  );
}
