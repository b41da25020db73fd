// Marking a title as watched: now with one button, or at a date and time the person picks (a disclosure
// with a local date-time field). A show marked as watched logs every aired episode of its regular
// seasons. Below: how often and when it was last watched.
import { useId, useState } from 'react';
import { api } from '../../api.ts';
import { detailPatch, pendingId, useOptimistic, type Detail, type TitleRef } from './data.ts';

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A `datetime-local` value for `d` in the browser's time zone. */
function localInput(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The detail as it is once the title is watched at `at`. */
function watchedAt(d: Detail, at: string, entries: { season: number | null; episode: number | null }[]): Detail {
  const latest = d.interaction?.watchedAt && d.interaction.watchedAt > at ? d.interaction.watchedAt : at;
  const added = entries.map((e) => ({ id: pendingId(), watchedAt: at, season: e.season, episode: e.episode }));
  return {
    ...d,
    interaction: d.interaction && { ...d.interaction, watchedAt: latest },
    watchHistory: [...added, ...d.watchHistory].sort((a, b) => b.watchedAt.localeCompare(a.watchedAt)),
  };
}

function Summary({ detail }: { detail: Detail }) {
  const last = detail.interaction?.watchedAt ?? detail.watchHistory[0]?.watchedAt ?? null;
  if (detail.title.type === 'movie') {
    const plays = detail.watchHistory.length;
    return (
      <p className="watch-summary" role="status">
        {plays === 0 ? 'Not watched yet.' : `Watched ${plays === 1 ? 'once' : `${plays} times`}, last on ${when(last ?? detail.watchHistory[0]!.watchedAt)}.`}
      </p>
    );
  }
  const seasons = (detail.title.seasonStats ?? []).filter((s) => s.seasonNumber > 0);
  const aired = seasons.reduce((n, s) => n + s.airedEpisodes, 0);
  const watched = seasons.reduce((n, s) => n + (s.watchedEpisodes ?? 0), 0);
  return (
    <p className="watch-summary" role="status">
      {watched === 0 ? 'No episode watched yet.' : `${watched} of ${aired} aired episodes watched${last ? `, last on ${when(last)}` : ''}.`}
    </p>
  );
}

export function WatchControls({ titleRef, detail }: { titleRef: TitleRef; detail: Detail }) {
  const [at, setAt] = useState('');
  const fieldId = useId();
  const log = useOptimistic(
    titleRef,
    (v: { watchedAt: string }) => api.platform.history.log.mutate({ ...titleRef, watchedAt: v.watchedAt }),
    () => [
      detailPatch(titleRef, (d, v: { watchedAt: string }) => {
        if (titleRef.type === 'movie') return watchedAt(d, v.watchedAt, [{ season: null, episode: null }]);
        const seasonStats = d.title.seasonStats?.map((s) => (s.seasonNumber > 0 ? { ...s, watchedEpisodes: s.airedEpisodes } : s));
        return { ...watchedAt(d, v.watchedAt, []), title: { ...d.title, seasonStats } };
      }),
    ],
  );
  return (
    <div className="watch-controls">
      <div className="actions">
        <button type="button" className="primary" onClick={() => log.mutate({ watchedAt: new Date().toISOString() })}>
          Mark as watched
        </button>
      </div>
      <details className="disclosure">
        <summary>Mark as watched at a date</summary>
        <form
          className="actions watch-at"
          onSubmit={(e) => {
            e.preventDefault();
            if (!at) return;
            log.mutate({ watchedAt: new Date(at).toISOString() });
            setAt('');
          }}
        >
          <div className="field">
            <label htmlFor={fieldId}>Watched at</label>
            <input id={fieldId} type="datetime-local" required value={at} max={localInput(new Date())} onChange={(e) => setAt(e.target.value)} />
          </div>
          <button type="submit" className="secondary">
            Save watch
          </button>
        </form>
      </details>
      <Summary detail={detail} />
    </div>
  );
}
