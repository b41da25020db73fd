// The trophy catalog: fixed in code, so every instance and every test sees the same definitions. A
// trophy's `id` is stable forever (it keys the earned rows, notifications and the change feed): add new
// trophies, never rename or reuse an id. Each trophy is earned when its metric (metrics.ts) reaches
// `target`.

export const TROPHY_TIERS = ['bronze', 'silver', 'gold', 'platinum'] as const;
export type TrophyTier = (typeof TROPHY_TIERS)[number];

/** Points a trophy of each tier adds to the user's total. */
export const TIER_POINTS: Readonly<Record<TrophyTier, number>> = { bronze: 10, silver: 25, gold: 50, platinum: 100 };

export const TROPHY_CATEGORIES = ['watching', 'movies', 'shows', 'anime', 'ratings', 'lists', 'streaks'] as const;
type TrophyCategory = (typeof TROPHY_CATEGORIES)[number];

/** What a trophy counts; each is computed from history, ratings or lists (metrics.ts says how). */
export const TROPHY_METRICS = [
  'watches',
  'movies',
  'episodes',
  'hours',
  'shows_completed',
  'anime_titles',
  'ratings',
  'lists',
  'list_items_max',
  'longest_streak',
] as const;
export type TrophyMetric = (typeof TROPHY_METRICS)[number];

/** How each metric is counted, for the OpenAPI document and docs/decisions.md. */
export const METRIC_RULES: Readonly<Record<TrophyMetric, string>> = {
  watches: 'history entries (rewatches count)',
  movies: 'different movies watched (anime films included; a rewatch counts once)',
  episodes: 'different episodes watched (a rewatch counts once)',
  hours: 'whole hours of everything watched, rewatches included (runtime as logged, else the episode\'s, else the title\'s)',
  shows_completed: 'shows with every aired regular episode (season 1 and up, aired today or earlier or undated) watched, by history, whatever their status',
  anime_titles: 'different anime titles (movies or shows) watched',
  ratings: 'ratings held now (titles, seasons and episodes)',
  lists: 'lists the user made (the watchlist and operator-imported external lists do not count)',
  list_items_max: 'items in the user\'s largest own plain list (not the watchlist, not dynamic or external lists)',
  longest_streak: 'longest run of consecutive UTC days with at least one watch, ever',
};

export type TrophyDefinition = {
  id: string;
  name: string;
  description: string;
  category: TrophyCategory;
  tier: TrophyTier;
  metric: TrophyMetric;
  target: number;
};

const t = (id: string, name: string, description: string, category: TrophyCategory, tier: TrophyTier, metric: TrophyMetric, target: number): TrophyDefinition => ({
  id,
  name,
  description,
  category,
  tier,
  metric,
  target,
});

/** Every trophy, in the order the API lists them. */
export const TROPHIES: readonly TrophyDefinition[] = [
  t('first-watch', 'First watch', 'Log your first watch', 'watching', 'bronze', 'watches', 1),
  t('hours-100', 'Couch potato', 'Watch 100 hours', 'watching', 'silver', 'hours', 100),
  t('hours-1000', 'Screen time', 'Watch 1,000 hours', 'watching', 'gold', 'hours', 1000),
  t('movies-10', 'Movie night', 'Watch 10 different movies', 'movies', 'bronze', 'movies', 10),
  t('movies-100', 'Movie buff', 'Watch 100 different movies', 'movies', 'silver', 'movies', 100),
  t('movies-1000', 'Cinephile', 'Watch 1,000 different movies', 'movies', 'platinum', 'movies', 1000),
  t('episodes-100', 'Binge starter', 'Watch 100 different episodes', 'shows', 'bronze', 'episodes', 100),
  t('episodes-1000', 'Binge watcher', 'Watch 1,000 different episodes', 'shows', 'gold', 'episodes', 1000),
  t('show-completed', 'Finisher', 'Watch every aired episode of a show', 'shows', 'silver', 'shows_completed', 1),
  t('shows-completed-10', 'Completionist', 'Watch every aired episode of 10 shows', 'shows', 'gold', 'shows_completed', 10),
  t('anime-1', 'Anime debut', 'Watch an anime', 'anime', 'bronze', 'anime_titles', 1),
  t('anime-10', 'Otaku', 'Watch 10 different anime', 'anime', 'silver', 'anime_titles', 10),
  t('anime-50', 'Anime devotee', 'Watch 50 different anime', 'anime', 'gold', 'anime_titles', 50),
  t('ratings-10', 'Critic', 'Rate 10 titles, seasons or episodes', 'ratings', 'bronze', 'ratings', 10),
  t('ratings-100', 'Top critic', 'Rate 100 titles, seasons or episodes', 'ratings', 'silver', 'ratings', 100),
  t('first-list', 'Curator', 'Make your first list', 'lists', 'bronze', 'lists', 1),
  t('list-10-items', 'Collector', 'Put 10 titles in one of your lists', 'lists', 'bronze', 'list_items_max', 10),
  t('list-100-items', 'Archivist', 'Put 100 titles in one of your lists', 'lists', 'silver', 'list_items_max', 100),
  t('streak-7', 'Week streak', 'Watch something 7 days in a row', 'streaks', 'silver', 'longest_streak', 7),
  t('streak-30', 'Month streak', 'Watch something 30 days in a row', 'streaks', 'gold', 'longest_streak', 30),
  t('streak-365', 'Year streak', 'Watch something 365 days in a row', 'streaks', 'platinum', 'longest_streak', 365),
];
