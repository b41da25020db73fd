// A show's seasons, each with how much of it the person has watched, a mark for all its aired episodes,
// and its episodes on demand (read when the season is opened), each with its own mark. An episode that
// has not aired cannot be marked.
import { useState } from 'react';
import { api, queryClient } from '../../api.ts';
import { ErrorNote, Loading } from '../../ui/states.tsx';
import { detailPatch, pendingId, seasonKey, useOptimistic, useSeason, type Detail, type Patch, type SeasonDetail, type TitleRef } from './data.ts';

type SeasonStat = NonNullable<Detail['title']['seasonStats']>[number];
type Episode = SeasonDetail['episodes'][number];

const seasonLabel = (n: number) => (n === 0 ? 'specials' : `season ${n}`);
const day = (d: string) => new Date(`${d}T00:00:00Z`).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** The season's count of watched episodes moved by `delta` (or set to all aired ones). */
function countWatched(d: Detail, season: number, next: (s: SeasonStat) => number): Detail {
  const seasonStats = d.title.seasonStats?.map((s) => (s.seasonNumber === season ? { ...s, watchedEpisodes: Math.min(s.airedEpisodes, Math.max(0, next(s))) } : s));
  return { ...d, title: { ...d.title, seasonStats } };
}

type Mark = { episode: Episode; on: boolean; at: string };

function useEpisodeMark(titleRef: TitleRef, detail: Detail) {
  return useOptimistic(
    titleRef,
    async ({ episode: e, on, at }: Mark) => {
      if (on) return api.platform.history.log.mutate({ ...titleRef, season: e.seasonNumber, episode: e.episodeNumber, watchedAt: at });
      const ids = detail.watchHistory.filter((h) => h.season === e.seasonNumber && h.episode === e.episodeNumber && h.id > 0).map((h) => h.id);
      // The title detail carries the latest 100 watches; removing only some of an episode's would leave it watched.
      if (!ids.length || ids.length < (e.plays ?? 0)) throw new Error(`Some watches of S${e.seasonNumber} E${e.episodeNumber} are older than this page shows: remove them in your history.`);
      return Promise.all(ids.map((id) => api.platform.history.remove.mutate({ id })));
    },
    ({ episode: e }: Mark): Patch<Mark>[] => [
      {
        key: seasonKey(titleRef, e.seasonNumber),
        apply: ((s: SeasonDetail, v: Mark) => ({
          ...s,
          episodes: s.episodes.map((x) =>
            x.episodeNumber === e.episodeNumber ? { ...x, watched: v.on, plays: v.on ? (x.plays ?? 0) + 1 : 0, watchedAt: v.on ? v.at : null } : x,
          ),
        })) as Patch<Mark>['apply'],
      },
      detailPatch(titleRef, (d, v: Mark) => {
        const was = Boolean(v.episode.watched);
        const counted = countWatched(d, e.seasonNumber, (s) => (s.watchedEpisodes ?? 0) + (v.on === was ? 0 : v.on ? 1 : -1));
        const watchHistory = v.on
          ? [{ id: pendingId(), watchedAt: v.at, season: e.seasonNumber, episode: e.episodeNumber }, ...d.watchHistory]
          : d.watchHistory.filter((h) => h.season !== e.seasonNumber || h.episode !== e.episodeNumber);
        return { ...counted, watchHistory };
      }),
    ],
  );
}

function Episodes({ titleRef, detail, season }: { titleRef: TitleRef; detail: Detail; season: number }) {
  const q = useSeason(titleRef, season);
  const mark = useEpisodeMark(titleRef, detail);
  if (q.isPending) return <Loading label={`Loading the episodes of ${seasonLabel(season)}`} rows={2} />;
  if (q.isError) return <ErrorNote error={q.error} onRetry={() => void q.refetch()} />;
  if (!q.data.episodes.length) return <p className="muted">No episodes listed yet.</p>;
  return (
    <ol className="episodes" aria-label={`Episodes of ${seasonLabel(season)}`}>
      {q.data.episodes.map((e) => {
        const code = `S${e.seasonNumber} E${e.episodeNumber}`;
        // A watch the service has not confirmed yet has no id to remove: Unmark waits for it.
        const entries = detail.watchHistory.filter((h) => h.season === e.seasonNumber && h.episode === e.episodeNumber);
        const waiting = Boolean(e.watched) && entries.length > 0 && entries.every((h) => h.id < 0);
        return (
          <li key={e.episodeNumber} className="episode">
            <div className="episode-text">
              <span className="episode-name">
                <span className="episode-code">{code}</span> {e.name || `Episode ${e.episodeNumber}`}
              </span>
              <span className="muted">
                {e.airDate ? (e.aired ? `Aired ${day(e.airDate)}` : `Airs ${day(e.airDate)}`) : 'No air date'}
                {e.watched ? ` · Watched${e.plays && e.plays > 1 ? ` ${e.plays} times` : ''}` : ''}
              </span>
            </div>
            {e.aired ? (
              <button
                type="button"
                className={e.watched ? 'secondary' : 'primary'}
                aria-disabled={waiting || undefined}
                onClick={() => !waiting && mark.mutate({ episode: e, on: !e.watched, at: new Date().toISOString() })}
              >
                {e.watched ? (
                  <>
                    <span aria-hidden="true">✓ </span>Unmark<span className="visually-hidden"> {code} as watched</span>
                  </>
                ) : (
                  <>
                    Mark<span className="visually-hidden"> {code}</span> as watched
                  </>
                )}
              </button>
            ) : (
              <span className="muted episode-unaired">Not aired yet</span>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function Season({ titleRef, detail, stat }: { titleRef: TitleRef; detail: Detail; stat: SeasonStat }) {
  const [open, setOpen] = useState(false);
  const n = stat.seasonNumber;
  const label = seasonLabel(n);
  const panelId = `season-${n}-episodes`;
  const all = useOptimistic(
    titleRef,
    (v: { at: string }) => api.platform.history.log.mutate({ ...titleRef, season: n, watchedAt: v.at }),
    () => [
      {
        key: seasonKey(titleRef, n),
        apply: ((s: SeasonDetail, v: { at: string }) => ({
          ...s,
          episodes: s.episodes.map((e) => (e.aired ? { ...e, watched: true, plays: (e.plays ?? 0) + 1, watchedAt: v.at } : e)),
        })) as Patch<{ at: string }>['apply'],
      },
      detailPatch(titleRef, (d, v: { at: string }) => {
        // The episodes the mark adds, as far as the page has read them (an opened season).
        const episodes = queryClient.getQueryData<SeasonDetail>(seasonKey(titleRef, n))?.episodes ?? [];
        const added = episodes.filter((e) => e.aired).map((e) => ({ id: pendingId(), watchedAt: v.at, season: n, episode: e.episodeNumber }));
        return { ...countWatched(d, n, (s) => s.airedEpisodes), watchHistory: [...added, ...d.watchHistory] };
      }),
    ],
  );
  const watched = stat.watchedEpisodes ?? 0;
  return (
    <li className="season card">
      <h3 id={`season-${n}`}>{stat.name || (n === 0 ? 'Specials' : `Season ${n}`)}</h3>
      <p className="muted">
        {watched} of {stat.airedEpisodes} aired watched · {stat.episodeCount} {stat.episodeCount === 1 ? 'episode' : 'episodes'}
        {stat.airDate ? ` · from ${day(stat.airDate)}` : ''}
      </p>
      <div className="actions">
        <button type="button" className="secondary" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen((o) => !o)}>
          Episodes<span className="visually-hidden"> of {label}</span>
        </button>
        {stat.airedEpisodes > 0 && watched < stat.airedEpisodes && (
          <button type="button" className="secondary" onClick={() => all.mutate({ at: new Date().toISOString() })}>
            Mark {label} as watched
          </button>
        )}
        {stat.airedEpisodes > 0 && watched >= stat.airedEpisodes && <span className="muted">All aired episodes watched</span>}
      </div>
      <div id={panelId} hidden={!open}>
        {open && <Episodes titleRef={titleRef} detail={detail} season={n} />}
      </div>
    </li>
  );
}

export function Seasons({ titleRef, detail }: { titleRef: TitleRef; detail: Detail }) {
  const seasons = detail.title.seasonStats ?? [];
  return (
    <section aria-labelledby="seasons" className="seasons">
      <h2 id="seasons">Seasons</h2>
      {seasons.length === 0 ? (
        <p className="muted">No seasons listed yet.</p>
      ) : (
        <ul className="season-list">
          {[...seasons]
            .sort((a, b) => (a.seasonNumber === 0 ? 1 : b.seasonNumber === 0 ? -1 : a.seasonNumber - b.seasonNumber))
            .map((s) => (
              <Season key={s.seasonNumber} titleRef={titleRef} detail={detail} stat={s} />
            ))}
        </ul>
      )}
    </section>
  );
}
