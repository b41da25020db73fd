// A public profile, /u/{username}, readable without signing in: the person's name, avatar and bio, their
// figures, favourites, recent watches and public lists. A private profile answers exactly as a username
// nobody has (the service's 404 for both), so this page shows the two the same way and reveals nothing.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, type PublicOutputs } from '../api.ts';
import { errorCode } from '../errors.ts';
import { Avatar } from '../ui/avatar.tsx';
import { Page } from '../ui/page.tsx';
import { Empty, ErrorNote, Loading } from '../ui/states.tsx';
import { TitleCard } from '../ui/title-link.tsx';
import './profile/profile.css';

type Profile = PublicOutputs['users']['get'];

const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
const month = (iso: string) => new Date(iso).toLocaleDateString(undefined, { month: 'long', year: 'numeric' });
const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

function NoSuchUser() {
  return (
    <Page title="No user by that name">
      <Empty>
        <p>Check the address for a typing mistake. A profile its owner keeps private shows this page too.</p>
        <p>
          <Link href="/">Go to the home page</Link> to find titles, or search for one above.
        </p>
      </Empty>
    </Page>
  );
}

function Section({ id, label, children }: { id: string; label: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="profile-section">
      <h2 id={id}>{label}</h2>
      {children}
    </section>
  );
}

function Figures({ stats }: { stats: Profile['stats'] }) {
  const figures: [string, number][] = [
    ['Movies', stats.moviesWatched],
    ['Shows', stats.showsWatched],
    ['Episodes', stats.episodesWatched],
    ['Hours watched', stats.hoursWatched],
    ['Watches', stats.watches],
    ['Ratings', stats.ratings],
    ['Favourites', stats.favourites],
    ['Public lists', stats.publicLists],
  ];
  return (
    <dl className="figures">
      {figures.map(([label, value]) => (
        <div key={label} className="figure">
          <dt>{label}</dt>
          <dd>{value.toLocaleString()}</dd>
        </div>
      ))}
    </dl>
  );
}

function ProfileView({ p }: { p: Profile }) {
  const name = p.displayName || p.username;
  return (
    <Page
      title={`${name} (@${p.username})`}
      heading={
        <span className="profile-name">
          <Avatar url={p.avatarUrl} name={name} size="lg" />
          {name}
        </span>
      }
    >
      <p className="muted">
        @{p.username} · Joined {month(p.joinedAt)}
      </p>
      {p.bio && <p className="profile-bio">{p.bio}</p>}

      <Section id="profile-figures" label="Figures">
        <Figures stats={p.stats} />
      </Section>

      <Section id="profile-favourites" label="Favourites">
        {p.favourites.length ? (
          <ul className="poster-grid" aria-label="Favourites">
            {p.favourites.map((t) => (
              <li key={t.id}>
                <TitleCard title={t} caption={t.year > 0 ? String(t.year) : undefined} />
              </li>
            ))}
          </ul>
        ) : (
          <Empty>{name} has no favourites yet.</Empty>
        )}
      </Section>

      <Section id="profile-watches" label="Recent watches">
        {p.recentWatches.length ? (
          <ul className="poster-grid" aria-label="Recent watches">
            {p.recentWatches.map((w) => (
              <li key={w.id}>
                <TitleCard title={w} caption={w.type === 'show' ? `S${w.season} E${w.episode}${w.episodeTitle ? ` “${w.episodeTitle}”` : ''} · ${day(w.watchedAt)}` : day(w.watchedAt)} />
              </li>
            ))}
          </ul>
        ) : (
          <Empty>{name} has not logged a watch yet.</Empty>
        )}
      </Section>

      <Section id="profile-lists" label="Public lists">
        {p.lists.length ? (
          <ul className="profile-lists" aria-label="Public lists">
            {p.lists.map((l) => (
              <li key={l.id} className="card">
                <Link href={`/lists/${l.id}`} className="profile-list-name">
                  {l.name}
                </Link>
                {l.description && <p className="profile-list-description">{l.description}</p>}
                <p className="muted">
                  {plural(l.itemCount, 'title', 'titles')} · {plural(l.likeCount, 'like', 'likes')}
                </p>
              </li>
            ))}
          </ul>
        ) : (
          <Empty>{name} has no public lists yet.</Empty>
        )}
      </Section>
    </Page>
  );
}

export default function ProfilePage({ username }: { username: string }) {
  const q = useQuery({
    queryKey: ['public-profile', username.toLowerCase()],
    queryFn: () => api.public.users.get.query({ username }),
  });
  if (q.isPending) {
    return (
      <Page title="Profile">
        <Loading label="Loading the profile" rows={4} />
      </Page>
    );
  }
  if (q.isError) {
    // A name the service cannot even look up (too long) is no user either.
    const code = errorCode(q.error);
    if (code === 'not_found' || code === 'invalid_request') return <NoSuchUser />;
    return (
      <Page title="Profile">
        <ErrorNote error={q.error} onRetry={() => void q.refetch()} />
      </Page>
    );
  }
  return <ProfileView p={q.data} />;
}
