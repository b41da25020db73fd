// Trophies and this week's challenges on the stats page: each with its progress as a <progress> whose
// accessible name says it in words ("Binge watcher: 3 of 10").
import { useQuery } from '@tanstack/react-query';
import { api, type PlatformOutputs } from '../api.ts';
import { ErrorNote, Loading } from '../ui/states.tsx';
import { count } from './stats-format.ts';

type Challenge = PlatformOutputs['profile']['communityStats']['weeklyChallenges'][number];

function Progress({ name, progress, target }: { name: string; progress: number; target: number }) {
  const text = `${count(Math.min(progress, target))} of ${count(target)}`;
  return (
    <span className="progress-line">
      <progress max={target} value={Math.min(progress, target)} aria-label={`${name}: ${text}`} />
      <span className="muted" aria-hidden="true">
        {text}
      </span>
    </span>
  );
}

export function Challenges({ items }: { items: Challenge[] }) {
  return (
    <ul className="goal-list">
      {items.map((c) => (
        <li key={c.id} className="card">
          <h3>{c.title}</h3>
          <p className="muted">
            {c.description} · {count(c.xpReward)} XP{c.completed ? ' · Completed' : ''}
          </p>
          <Progress name={c.title} progress={c.progress} target={c.target} />
        </li>
      ))}
    </ul>
  );
}

export function Trophies() {
  const summary = useQuery({ queryKey: ['trophies', 'summary'], queryFn: () => api.platform.trophies.summary.query() });
  const list = useQuery({ queryKey: ['trophies', 'list'], queryFn: () => api.platform.trophies.list.query() });
  if (list.isPending) return <Loading label="Loading trophies" rows={3} />;
  if (list.isError) return <ErrorNote error={list.error} onRetry={() => void list.refetch()} />;
  return (
    <>
      {summary.data && (
        <p>
          {count(summary.data.earned)} of {count(summary.data.total)} earned · {count(summary.data.points)} of {count(summary.data.totalPoints)} points
        </p>
      )}
      <ul className="goal-list">
        {list.data.items.map((t) => (
          <li key={t.id} className={t.earned ? 'card earned' : 'card'}>
            <h3>
              {t.name} <span className="muted">({t.tier})</span>
            </h3>
            <p className="muted">
              {t.description}
              {t.earnedAt ? (
                <>
                  {' '}· Earned <time dateTime={t.earnedAt}>{new Date(t.earnedAt).toLocaleDateString()}</time>
                </>
              ) : null}
            </p>
            <Progress name={t.name} progress={t.progress} target={t.target} />
          </li>
        ))}
      </ul>
    </>
  );
}
