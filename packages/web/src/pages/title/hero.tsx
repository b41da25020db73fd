// The top of a title's page: its backdrop (when it has one and it loads), poster, year, genres, running
// time, overview and the two community ratings (the catalog source's and this service's users').
import { useState } from 'react';
import { Poster } from '../../ui/poster.tsx';
import type { Detail } from './data.ts';

function Backdrop({ url }: { url: string }) {
  const [failed, setFailed] = useState(false);
  if (!url || failed) return null;
  return <img className="title-backdrop" src={url} alt="" decoding="async" onError={() => setFailed(true)} />;
}

const hours = (minutes: number) => (minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`);

function facts(t: Detail['title']): string[] {
  const out: string[] = [t.type === 'movie' ? 'Movie' : t.isAnime ? 'Anime series' : 'Series'];
  if (t.year > 0) out.push(String(t.year));
  if (t.type === 'movie' && t.runtimeMinutes) out.push(hours(t.runtimeMinutes));
  if (t.type === 'show') {
    if (t.seasonsCount !== undefined) out.push(`${t.seasonsCount} ${t.seasonsCount === 1 ? 'season' : 'seasons'}`);
    if (t.episodeRunTimeMinutes) out.push(`${t.episodeRunTimeMinutes} min episodes`);
  }
  if (t.ageRating) out.push(t.ageRating);
  return out;
}

export function TitleHero({ detail }: { detail: Detail }) {
  const t = detail.title;
  const members = detail.communityRating;
  const source = detail.externalRatings?.ratings[0];
  return (
    <div className="title-hero">
      <Backdrop url={t.backdropUrl} />
      <div className="title-poster">
        <Poster title={t} size="lg" />
      </div>
      <div className="title-facts">
        {t.tagline && <p className="title-tagline">{t.tagline}</p>}
        <p className="title-meta">{facts(t).join(' · ')}</p>
        {t.genres.length > 0 && (
          <ul className="title-genres" aria-label="Genres">
            {t.genres.map((g) => (
              <li key={g}>{g}</li>
            ))}
          </ul>
        )}
        <p className="title-overview">{t.overview || 'No overview yet.'}</p>
        <dl className="title-ratings">
          <div>
            <dt>Community rating</dt>
            <dd>{source ? `${source.value.toFixed(1)} / 10 (${source.votes.toLocaleString()} votes)` : 'No votes yet'}</dd>
          </div>
          <div>
            <dt>Members here</dt>
            <dd>{members.average !== null && members.count > 0 ? `${members.average.toFixed(1)} / 10 (${members.count} ${members.count === 1 ? 'rating' : 'ratings'})` : 'Not rated yet'}</dd>
          </div>
        </dl>
      </div>
    </div>
  );
}
