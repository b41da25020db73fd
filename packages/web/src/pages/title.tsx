// A movie's or show's page (/title/{movie|show}/{id}): what it is, and everything the user keeps of it:
// watches, rating, favourite, status, lists, watchlist, collection, and for shows each season's
// episodes. The whole page comes from one query (the title detail), so its data arrives in one request.
import { Link } from 'wouter';
import { errorCode } from '../errors.ts';
import { Page } from '../ui/page.tsx';
import { SignedIn, useSignedIn } from '../ui/signed-in.tsx';
import { ErrorNote, Loading } from '../ui/states.tsx';
import { useTitleDetail, type TitleRef } from './title/data.ts';
import { TitleHero } from './title/hero.tsx';
import { TitleLists } from './title/lists.tsx';
import { CollectionFormats } from './title/collection.tsx';
import { Seasons } from './title/seasons.tsx';
import { SimilarTitles } from './title/similar.tsx';
import { TitleState } from './title/state.tsx';
import { WatchControls } from './title/watch.tsx';
import './title/title.css';

/** The route's parts as a title, or null when they cannot name one (then the page is "not found"). */
function parseRef(type: string, id: string): TitleRef | null {
  if (type !== 'movie' && type !== 'show') return null;
  if (!/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2_147_483_647) return null;
  return { type, movieDbId: Number(id) };
}

function NotFound() {
  return (
    <Page title="Title not found">
      <p>There is no such movie or show here. It may have been removed, or the address may be mistyped.</p>
      <p className="actions">
        <Link href="/" className="button secondary">
          Go home
        </Link>
      </p>
      <p className="muted">Or search for a title in the search field at the top.</p>
    </Page>
  );
}

function Title({ titleRef }: { titleRef: TitleRef }) {
  const q = useTitleDetail(titleRef);
  if (q.isPending) {
    return (
      <Page title="Title">
        <Loading label="Loading the title" />
      </Page>
    );
  }
  if (q.isError) {
    if (errorCode(q.error) === 'not_found') return <NotFound />;
    return (
      <Page title="Title">
        <ErrorNote error={q.error} onRetry={() => void q.refetch()} />
      </Page>
    );
  }
  const d = q.data;
  return (
    <Page title={d.title.name}>
      <TitleHero detail={d} />
      <section aria-labelledby="your-title" className="title-you">
        <h2 id="your-title">Yours</h2>
        <WatchControls titleRef={titleRef} detail={d} />
        <TitleState titleRef={titleRef} detail={d} />
        <TitleLists titleRef={titleRef} detail={d} />
        <CollectionFormats titleRef={titleRef} detail={d} />
      </section>
      {titleRef.type === 'show' && <Seasons titleRef={titleRef} detail={d} />}
      <SimilarTitles detail={d} />
    </Page>
  );
}

export default function TitlePage({ type, id }: { type: string; id: string }) {
  const signedIn = useSignedIn();
  const titleRef = parseRef(type, id);
  if (!titleRef) return <NotFound />;
  if (!signedIn) {
    return (
      <Page title={titleRef.type === 'movie' ? 'Movie' : 'Show'}>
        <SignedIn what="this title with your watches, rating and lists">{null}</SignedIn>
      </Page>
    );
  }
  return <Title key={`${titleRef.type}-${titleRef.movieDbId}`} titleRef={titleRef} />;
}
