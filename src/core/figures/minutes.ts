// Minutes watched: the one rule for every figure of watched time (the kept figures, their rebuild, the
// community statistics), over entries `w` with their episode `e` (left-joined) and title `t`.
import { expressionBuilder } from 'kysely';
import type { Tables } from '../schema/index.ts';

const wet = expressionBuilder<{ w: Tables['watch_history']; e: Tables['episode']; t: Tables['title'] }, 'w' | 'e' | 't'>();

/** An entry's minutes: as logged, else its episode's, else its title's (0 when none is known). */
export const entryMinutes = wet.fn.coalesce('w.runtime_minutes', 'e.runtime_minutes', 't.runtime_minutes', 't.episode_run_time_minutes', wet.lit(0));

/** Minutes watched over the rows (int8 text; 0 for none), each entry's as entryMinutes counts it. */
export const minutesWatched = wet.cast<string>(wet.fn.coalesce(wet.fn.sum(entryMinutes), wet.lit(0)), 'bigint');
