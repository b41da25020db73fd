// The title detail read as a statement (text and parameters), for the benchmark's
// bare-`pg` baseline: built by the same functions the service runs (repository.ts), so both run exactly
// the same text.
import { offline, toSql } from '../db/compile.ts';
import type { Sql } from '../db/sql.ts';
import { titleDetailQuery, type TitleDetailQuery } from './repository.ts';

export { TITLE_HISTORY_LIMIT, type TitleDetailQuery, type UserState } from './repository.ts';

/** The title detail's statement, a named one (`prepare`) as the service runs it. */
export const titleDetailSql = (q: TitleDetailQuery): Sql => toSql(titleDetailQuery(offline, q), true);
