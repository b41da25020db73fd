// Calendar: episodes of the shows the person follows that air in a range of days (a week unless the URL
// says otherwise), a heading per day, each linking to its show. "Previous" and "Next" move the range and
// keep it in the URL, so the page can be shared and reloaded where it was.
import { useQuery } from '@tanstack/react-query';
import { Link, useSearch } from 'wouter';
import { api, type PlatformOutputs } from '../api.ts';
import { Page } from '../ui/page.tsx';
import { Poster } from '../ui/poster.tsx';
import { SignedIn } from '../ui/signed-in.tsx';
import { Empty, ErrorNote, Loading } from '../ui/states.tsx';
import { titlePath } from '../ui/title-link.tsx';
import { addDays, dayName, rangeHref, readRange, type Range } from './calendar-range.ts';

type Item = PlatformOutputs['titles']['calendar']['items'][number];

export default function CalendarPage() {
  return (
    <Page title="Calendar">
      <SignedIn what="the episodes of the shows you follow">
        <Calendar range={readRange(useSearch())} />
      </SignedIn>
    </Page>
  );
}

function Calendar({ range }: { range: Range }) {
  const q = useQuery({
    queryKey: ['calendar', range.start, range.days],
    queryFn: () => api.platform.titles.calendar.query({ startDate: range.start, days: range.days }),
  });
  const last = addDays(range.start, range.days - 1);
  const span = range.start === last ? dayName(range.start) : `${dayName(range.start, { day: 'numeric', month: 'long' })} to ${dayName(last, { day: 'numeric', month: 'long' })}`;
  return (
    <>
      <nav className="calendar-nav" aria-label="Range">
        <Link href={rangeHref({ ...range, start: addDays(range.start, -range.days) })} className="button secondary">
          <span aria-hidden="true">←</span> Previous
        </Link>
        <p className="calendar-span" aria-live="polite">
          {span}
        </p>
        <Link href={rangeHref({ ...range, start: addDays(range.start, range.days) })} className="button secondary">
          Next <span aria-hidden="true">→</span>
        </Link>
      </nav>
      {q.isPending ? (
        <Loading label="Loading the calendar" rows={4} />
      ) : q.isError ? (
        <ErrorNote error={q.error} onRetry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <Empty>
          <p>No episodes of the shows you follow air from {span}.</p>
          <p>
            To follow a show, open its page (search for it at the top) and set its status to Watching. Its new episodes show here. Or look at the{' '}
            <Link href={rangeHref({ ...range, start: addDays(range.start, range.days) })}>next {range.days === 7 ? 'week' : `${range.days} days`}</Link>.
          </p>
        </Empty>
      ) : (
        <Days items={q.data.items} />
      )}
    </>
  );
}

function Days({ items }: { items: Item[] }) {
  const days = new Map<string, Item[]>();
  for (const item of items) days.set(item.airDate, [...(days.get(item.airDate) ?? []), item]);
  return (
    <>
      {[...days].map(([day, episodes]) => (
        <section key={day} aria-labelledby={`air-${day}`}>
          <h2 id={`air-${day}`}>
            <time dateTime={day}>{dayName(day)}</time>
          </h2>
          <ul className="calendar-list">
            {episodes.map((e) => (
              <li key={`${e.show.movieDbId}-${e.season}-${e.episode}`} className="calendar-entry">
                <Poster title={{ name: e.show.name, posterUrl: e.show.posterUrl }} size="sm" />
                <div className="calendar-entry-text">
                  <Link href={titlePath({ type: 'show', movieDbId: e.show.movieDbId })} className="calendar-entry-name">
                    {e.show.name}
                  </Link>
                  <span>
                    S{e.season} E{e.episode}
                    {e.episodeTitle ? ` · ${e.episodeTitle}` : ''}
                  </span>
                  {(e.runtimeMinutes || e.watched) && (
                    <span className="muted">{[e.runtimeMinutes ? `${e.runtimeMinutes} min` : '', e.watched ? 'Watched' : ''].filter(Boolean).join(' · ')}</span>
                  )}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </>
  );
}
