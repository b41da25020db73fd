// Stats: the signed-in person's figures (watch time, movies, shows, episodes, ratings, streaks, XP), this
// month's, the last twelve months as charts, a calendar year in review (any year, picked), this week's
// challenges, and trophies with their progress.
// Every figure is read from what the service keeps on write, so the page costs the same for any history.
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api } from '../api.ts';
import { Page } from '../ui/page.tsx';
import { SignedIn } from '../ui/signed-in.tsx';
import { ErrorNote, Loading } from '../ui/states.tsx';
import { YearCharts } from './stats-charts.tsx';
import { Figures } from './stats-figures.tsx';
import { count, duration, plural } from './stats-format.ts';
import { Challenges, Trophies } from './stats-trophies.tsx';
import { YearInReview } from './stats-year.tsx';

export default function StatsPage() {
  return (
    <Page title="Stats">
      <SignedIn what="your stats">
        <Stats />
      </SignedIn>
    </Page>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="stats-section">
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

function Stats() {
  const stats = useQuery({ queryKey: ['stats', 'figures'], queryFn: () => api.platform.profile.stats.query() });
  const community = useQuery({ queryKey: ['stats', 'community'], queryFn: () => api.platform.profile.communityStats.query() });
  const s = stats.data;
  const c = community.data;
  return (
    <>
      <Section id="stats-all" title="All time">
        {stats.isPending || community.isPending ? (
          <Loading label="Loading your figures" rows={2} />
        ) : !s || !c ? (
          <ErrorNote error={stats.error ?? community.error} onRetry={() => void Promise.all([stats.refetch(), community.refetch()])} />
        ) : (
          <>
            {s.watches === 0 && <p className="empty">Nothing counted yet. Search for a title (at the top, or press /) and mark it as watched: your figures start there.</p>}
            <Figures
              items={[
                ['Watch time', duration(s.minutes)],
                ['Watches', count(s.watches)],
                ['Movies', count(s.movies)],
                ['Shows', count(s.shows)],
                ['Episodes', count(s.episodes)],
                ['Shows completed', count(s.showsCompleted)],
                ...(s.ratings === null ? [] : [['Ratings', count(s.ratings)] as [string, string]]),
                ['Current streak', plural(c.streak, 'day')],
                ['Longest streak', plural(s.longestStreak, 'day')],
                ['Challenges completed', count(c.totalChallengesCompleted)],
                ['XP', count(c.xpScore)],
              ]}
            />
          </>
        )}
      </Section>
      <Section id="stats-month" title="This month">
        {community.isPending ? (
          <Loading label="Loading this month" rows={1} />
        ) : community.isError ? (
          <ErrorNote error={community.error} onRetry={() => void community.refetch()} />
        ) : (
          <Figures
            items={[
              ['Movies', count(community.data.monthMovies)],
              ['Episodes', count(community.data.monthEpisodes)],
              ['Hours', count(community.data.monthHours)],
              ['Ratings', count(community.data.monthReviews)],
            ]}
          />
        )}
      </Section>
      <Section id="stats-year" title="The last 12 months">
        {stats.isPending ? <Loading label="Loading the charts" rows={3} /> : stats.isError ? <ErrorNote error={stats.error} onRetry={() => void stats.refetch()} /> : <YearCharts stats={stats.data} />}
      </Section>
      <Section id="stats-review" title="Year in review">
        <YearInReview />
      </Section>
      <Section id="stats-challenges" title="This week’s challenges">
        {community.isPending ? (
          <Loading label="Loading the challenges" rows={2} />
        ) : community.isError ? (
          <ErrorNote error={community.error} onRetry={() => void community.refetch()} />
        ) : (
          <>
            <p className="muted">
              {community.data.weeklyCompletedChallenges} of {community.data.weeklyChallenges.length} completed this week (weeks start on Monday, UTC).
            </p>
            <Challenges items={community.data.weeklyChallenges} />
          </>
        )}
      </Section>
      <Section id="stats-trophies" title="Trophies">
        <Trophies />
      </Section>
    </>
  );
}
