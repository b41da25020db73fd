// What the items of a Trakt sync write name, found for the whole body at once: movies and shows by
// their ids (resolveTraktTitles: one statement per kind of id), seasons and episodes by their `trakt`
// ids (the season's or episode's row id; they have no other id here), with their show. And the
// not_found part of the answer, which echoes the items as sent: a show found but some of whose seasons
// or episodes are not is echoed with just those seasons and episodes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { episodesByRowId, seasonsByRowId } from '../core/catalog/episode-keys-repository.ts';
import type { ResolvedTitle } from '../core/catalog/resolve.ts';
import { titlesByRowId } from '../core/catalog/title-keys.ts';
import { resolveTraktTitles } from './ids.ts';
import type { EpisodeEntry, IdItem, NotFound, SeasonEntry, ShowItem, SyncBody } from './sync-body.ts';

type SeasonOf = { title: ResolvedTitle; season: number };
type EpisodeOf = { title: ResolvedTitle; season: number; episode: number; id: string };

export type SyncTargets = {
  movies: (ResolvedTitle | null)[];
  shows: (ResolvedTitle | null)[];
  seasons: (SeasonOf | null)[];
  episodes: (EpisodeOf | null)[];
};

const traktIdOf = (i: IdItem) => (i.ids.trakt === undefined ? '' : String(i.ids.trakt));

export async function resolveSyncTargets(em: EntityManager, body: SyncBody): Promise<SyncTargets> {
  const movies = body.movies.length ? await resolveTraktTitles(em, 'movie', body.movies) : [];
  const shows = body.shows.length ? await resolveTraktTitles(em, 'show', body.shows) : [];
  const seasons = await seasonsByRowId(em, body.seasons.map(traktIdOf));
  const episodes = await episodesByRowId(em, body.episodes.map(traktIdOf));
  // Their shows, in one statement.
  const showIds = [...new Set([...seasons, ...episodes].flatMap((s) => (s ? [s.titleId] : [])))];
  const titles = await titlesByRowId(em, 'show', showIds);
  const showOf = new Map(showIds.map((id, i) => [id, titles[i] ?? null]));
  return {
    movies,
    shows,
    seasons: seasons.map((s) => {
      const title = s && showOf.get(s.titleId);
      return s && title ? { title, season: s.season } : null;
    }),
    episodes: episodes.map((e) => {
      const title = e && showOf.get(e.titleId);
      return e && title ? { title, season: e.season, episode: e.episode, id: e.id } : null;
    }),
  };
}

/** The not_found part of an answer, filled as the items' outcomes come in. */
export class NotFoundItems {
  private readonly found: NotFound = { movies: [], shows: [], seasons: [], episodes: [] };
  /** Per show item (by its index) found but with seasons or episodes that are not: those, by season number. */
  private readonly partly = new Map<number, { show: ShowItem; seasons: Map<number, { entry: SeasonEntry; episodes: EpisodeEntry[] | null }> }>();

  item(kind: keyof NotFound, item: unknown): void {
    if (!this.found[kind].includes(item)) this.found[kind].push(item);
  }

  /** A season of a found show that is not found (`episode` absent), or one episode of it. */
  showPart(showIndex: number, show: ShowItem, season: SeasonEntry, episode?: EpisodeEntry): void {
    const entry = this.partly.get(showIndex) ?? { show, seasons: new Map() };
    this.partly.set(showIndex, entry);
    const part = entry.seasons.get(season.number) ?? { entry: season, episodes: episode ? [] : null };
    entry.seasons.set(season.number, part);
    if (episode && part.episodes && !part.episodes.includes(episode)) part.episodes.push(episode);
  }

  toJSON(): NotFound {
    const shows = [...this.found.shows];
    for (const { show, seasons } of [...this.partly.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v)) {
      const { seasons: _all, ...rest } = show;
      shows.push({
        ...rest,
        seasons: [...seasons.values()].map(({ entry, episodes }) => {
          const { episodes: _sent, ...season } = entry;
          return episodes ? { ...season, episodes } : entry;
        }),
      });
    }
    return { ...this.found, shows };
  }
}
