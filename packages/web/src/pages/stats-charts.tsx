// The last twelve months of the stats page: minutes per month, minutes per weekday, and the genres
// watched most, each with its text alternative.
import type { PlatformOutputs } from '../api.ts';
import { BarChart } from '../ui/bar-chart.tsx';
import { duration, longMonth, longWeekday, plural, shortMonth, shortWeekday } from './stats-format.ts';

type Stats = PlatformOutputs['profile']['stats'];

const TOP_GENRES = 10;

export function YearCharts({ stats }: { stats: Stats }) {
  const genres = stats.genres.slice(0, TOP_GENRES);
  return (
    <div className="stats-charts">
      <BarChart
        title="Minutes watched per month"
        bars={stats.months.map((m) => ({ label: shortMonth(m.month), longLabel: longMonth(m.month), value: m.minutes }))}
        valueText={duration}
      />
      <BarChart
        title="Minutes watched per weekday"
        bars={stats.weekdays.map((w) => ({ label: shortWeekday(w.weekday), longLabel: longWeekday(w.weekday), value: w.minutes }))}
        valueText={duration}
      />
      <figure className="genre-chart" aria-labelledby="genres-caption">
        <figcaption id="genres-caption">Genres watched most</figcaption>
        {genres.length === 0 ? <p className="muted">No genres yet: the genres of what you watch show here.</p> : <GenreBars genres={genres} />}
      </figure>
    </div>
  );
}

/** Genres most watched first, each with its count in words and a bar against the first. */
export function GenreBars({ genres }: { genres: { name: string; count: number }[] }) {
  const most = Math.max(1, ...genres.map((g) => g.count));
  return (
    <ol className="genre-bars">
      {genres.map((g) => (
        <li key={g.name}>
          <span className="genre-name">{g.name}</span>
          <span className="genre-count">{plural(g.count, 'watch', 'watches')}</span>
          <svg className="genre-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
            <rect x={0} y={0} height={10} width={(g.count / most) * 100} rx={1} />
          </svg>
        </li>
      ))}
    </ol>
  );
}
