// Regular episodes watched (season 1 and up; season 0 holds specials), Up next's count of a show's
// progress: one expression for the kept figures and their rebuild, over entries `w` with their episode
// `e` (left-joined).
import { expressionBuilder } from 'kysely';
import type { Tables } from '../schema/index.ts';

const we = expressionBuilder<{ w: Tables['watch_history']; e: Tables['episode'] }, 'w' | 'e'>();

/** Different regular episodes with an entry among the rows (int8; 0 for none). */
export const regularEpisodesWatched = we.fn.count('w.episode_id').distinct().filterWhere('e.season_number', '>', 0);
