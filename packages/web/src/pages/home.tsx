// Home: what the person is in the middle of (Continue Watching, live: a scrobble from another app shows
// here within moments), the next episode of each show they are watching, what they watched last, and what is
// trending. A visitor sees trending titles and a way to sign in.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api.ts';
import { signIn } from '../auth.ts';
import { keys } from '../live.ts';
import { imageUrl } from '../ui/images.ts';
import { Page } from '../ui/page.tsx';
import { useSignedIn } from '../ui/signed-in.tsx';
import { Empty, ErrorNote, Loading } from '../ui/states.tsx';
import { TitleCard } from '../ui/title-link.tsx';

const episodeLabel = (season: number | null, episode: number | null) => (season !== null && episode !== null ? `S${season} E${episode}` : undefined);

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  const id = `row-${label.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section aria-labelledby={id} className="row-section">
      <h2 id={id}>{label}</h2>
      {children}
    </section>
  );
}

function ContinueWatching() {
  const q = useQuery({ queryKey: keys.continueWatching, queryFn: () => api.platform.playback.continueWatching.query({ limit: 20 }) });
  if (q.isPending) return <Loading label="Loading Continue Watching" rows={1} />;
  if (q.isError) return <ErrorNote error={q.error} onRetry={() => void q.refetch()} />;
  if (!q.data.items.length) return <Empty>Nothing in progress. Start playing something in an app that scrobbles, and it shows here.</Empty>;
  return (
    <ul className="poster-row" aria-label="Continue Watching">
      {q.data.items.map((item) => (
        <li key={item.id}>
          <TitleCard
            title={{ ...item, posterUrl: imageUrl(item.posterPath) }}
            caption={[episodeLabel(item.season, item.episode), `${Math.round(item.progress * 100)}% watched`].filter(Boolean).join(' · ')}
          />
          <progress max={1} value={item.progress} aria-label={`${item.name}: ${Math.round(item.progress * 100)}% watched`} />
        </li>
      ))}
    </ul>
  );
}

function RecentlyWatched() {
  const q = useQuery({ queryKey: ['history', 'recent'], queryFn: () => api.platform.history.list.query({ limit: 12 }) });
  if (q.isPending) return <Loading label="Loading recently watched" rows={1} />;
  if (q.isError) return <ErrorNote error={q.error} onRetry={() => void q.refetch()} />;
  if (!q.data.items.length) return <Empty>You have not logged a watch yet. Search for a title and mark it as watched.</Empty>;
  return (
    <ul className="poster-row" aria-label="Recently watched">
      {q.data.items.map((item) => (
        <li key={item.id}>
          <TitleCard title={{ ...item, posterUrl: imageUrl(item.posterPath) }} caption={episodeLabel(item.season, item.episode) ?? new Date(item.watchedAt).toLocaleDateString()} />
        </li>
      ))}
    </ul>
  );
}

function Trending() {
  const q = useQuery({ queryKey: ['trending'], queryFn: () => api.public.catalog.trending.query({ limit: 12 }), staleTime: 300_000 });
  if (q.isPending) return <Loading label="Loading trending titles" rows={1} />;
  if (q.isError) return <ErrorNote error={q.error} onRetry={() => void q.refetch()} />;
  if (!q.data.items.length) return <Empty>Nothing is trending yet.</Empty>;
  return (
    <ul className="poster-row" aria-label="Trending">
      {q.data.items.map((item) => (
        <li key={item.id}>
          <TitleCard title={item} caption={item.year > 0 ? String(item.year) : undefined} />
        </li>
      ))}
    </ul>
  );
}

export function HomePage() {
  const signedIn = useSignedIn();
  if (!signedIn) {
    return (
      <Page title="Track what you watch">
        <p className="lead">Your movies, shows and anime: history, ratings, lists and what to watch next, in one place and in every app you use.</p>
        <p className="actions">
          <button type="button" className="primary" onClick={() => void signIn('/')}>
            Sign in
          </button>
          <a className="button secondary" href="/account/sign-up">
            Create an account
          </a>
        </p>
        <Row label="Trending">
          <Trending />
        </Row>
      </Page>
    );
  }
  return (
    <Page title="Home">
      <Row label="Continue Watching">
        <ContinueWatching />
      </Row>
      <Row label="Up next">
        <UpNext />
      </Row>
      <Row label="Recently watched">
        <RecentlyWatched />
      </Row>
      <Row label="Trending">
        <Trending />
      </Row>
      <p className="muted">
        See your whole <Link href="/history">history</Link> or <Link href="/stats">stats</Link>.
      </p>
    </Page>
  );
}

function UpNext() {
  const q = useQuery({ queryKey: ['up-next'], queryFn: () => api.platform.history.upNext.query({ limit: 12 }) });
  if (q.isPending) return <Loading label="Loading up next" rows={1} />;
  if (q.isError) return <ErrorNote error={q.error} onRetry={() => void q.refetch()} />;
  if (!q.data.items.length) return <Empty>When you watch an episode of a show, its next episode shows here once it has aired.</Empty>;
  return (
    <ul className="poster-row" aria-label="Up next">
      {q.data.items.map((item) => (
        <li key={item.show.id}>
          <TitleCard
            title={item.show}
            caption={`${episodeLabel(item.nextEpisode.season, item.nextEpisode.episode)}${item.nextEpisode.episodeTitle ? ` · ${item.nextEpisode.episodeTitle}` : ''} · ${item.watchedEpisodes} of ${item.airedEpisodes} watched`}
          />
        </li>
      ))}
    </ul>
  );
}
