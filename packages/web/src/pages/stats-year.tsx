// The stats page's year in review: a year picked from a list (this year and the ones before it), and that
// UTC calendar year's figures as the service keeps them: totals, its busiest month, day and weekday, the
// longest streak inside it, top genres and titles, and its first and latest watch.
import { useQuery } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { api, type PlatformOutputs } from '../api.ts';
import { ErrorNote, Loading } from '../ui/states.tsx';
import { titlePath, TitleCard } from '../ui/title-link.tsx';
import { GenreBars } from './stats-charts.tsx';
import { Figures } from './stats-figures.tsx';
import { count, duration, longMonth, longWeekday, plural } from './stats-format.ts';

type Review = PlatformOutputs['profile']['yearInReview'];
type Watch = NonNullable<Review['firstWatch']>;

/** Years offered: this one and the 19 before it. */
const YEARS_OFFERED = 20;

const longDate = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const watches = (n: number) => plural(n, 'watch', 'watches');

export function YearInReview() {
  const id = useId();
  const current = new Date().getUTCFullYear();
  const [year, setYear] = useState(current);
  const review = useQuery({ queryKey: ['stats', 'year-in-review', year], queryFn: () => api.platform.profile.yearInReview.query({ year }) });
  return (
    <>
      <div className="field year-picker">
        <label htmlFor={id}>Year</label>
        <select id={id} value={year} onChange={(e) => setYear(Number(e.target.value))}>
          {Array.from({ length: YEARS_OFFERED }, (_, i) => current - i).map((y) => (
            <option key={y} value={y}>
              {y}
            </option>
          ))}
        </select>
      </div>
      {review.isPending ? (
        <Loading label={`Loading ${year}`} rows={2} />
      ) : review.isError ? (
        <ErrorNote error={review.error} onRetry={() => void review.refetch()} />
      ) : (
        <YearFigures review={review.data} current={year === current} />
      )}
    </>
  );
}

function YearFigures({ review: r, current }: { review: Review; current: boolean }) {
  if (r.watches === 0) {
    return (
      <p className="empty">
        {`Nothing watched in ${r.year}${current ? ' yet' : ''}.`}
        {r.ratings > 0 && ` You gave ${plural(r.ratings, 'rating')} that year.`}
      </p>
    );
  }
  const streak = r.longestStreak;
  return (
    <div className="year-review">
      <Figures
        label={`${r.year} in figures`}
        items={[
          ['Watch time', duration(r.minutes)],
          ['Watches', count(r.watches)],
          ['Movies', count(r.movieWatches)],
          ['Episodes', count(r.episodeWatches)],
          ['Days watched', count(r.activeDays)],
          ['Ratings given', count(r.ratings)],
        ]}
      />
      <dl className="year-highlights" aria-label={`${r.year} highlights`}>
        {r.busiestMonth && <Highlight label="Busiest month" value={longMonth(r.busiestMonth.month)} detail={watches(r.busiestMonth.watches)} />}
        {r.busiestDay && <Highlight label="Busiest day" value={`${longWeekday(r.busiestDay.weekday)}, ${longDate(r.busiestDay.date)}`} detail={watches(r.busiestDay.watches)} />}
        {r.busiestWeekday && <Highlight label="Busiest weekday" value={longWeekday(r.busiestWeekday.weekday)} detail={watches(r.busiestWeekday.watches)} />}
        {streak && <Highlight label="Longest streak" value={plural(streak.days, 'day')} detail={streak.days === 1 ? longDate(streak.firstDay) : `${longDate(streak.firstDay)} to ${longDate(streak.lastDay)}`} />}
        {r.firstWatch && <Highlight label="First watch" value={<WatchLink watch={r.firstWatch} />} detail={longDate(r.firstWatch.watchedAt.slice(0, 10))} />}
        {r.lastWatch && <Highlight label={current ? 'Latest watch' : 'Last watch'} value={<WatchLink watch={r.lastWatch} />} detail={longDate(r.lastWatch.watchedAt.slice(0, 10))} />}
      </dl>
      <div className="stats-charts">
        <figure className="genre-chart" aria-labelledby={`genres-${r.year}`}>
          <figcaption id={`genres-${r.year}`}>{`Top genres of ${r.year}`}</figcaption>
          <GenreBars genres={r.topGenres} />
        </figure>
      </div>
      <h3 id={`top-${r.year}`}>{`Most watched in ${r.year}`}</h3>
      <ol className="poster-row" aria-labelledby={`top-${r.year}`}>
        {r.topTitles.map((t) => (
          <li key={t.title.id}>
            <TitleCard title={t.title} caption={`${watches(t.watches)} · ${duration(t.minutes)}`} />
          </li>
        ))}
      </ol>
    </div>
  );
}

function Highlight({ label, value, detail }: { label: string; value: ReactNode; detail: string }) {
  return (
    <div className="card">
      <dt>{label}</dt>
      <dd>
        <span className="highlight-value">{value}</span>{' '}
        <span className="muted">{detail}</span>
      </dd>
    </div>
  );
}

/** A watch by its title's name (and episode), linking to the title. */
function WatchLink({ watch: w }: { watch: Watch }) {
  const episode = w.season !== null && w.episode !== null ? ` S${w.season} E${w.episode}` : '';
  return <Link href={titlePath(w)}>{`${w.name}${episode}`}</Link>;
}
