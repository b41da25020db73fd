// Which of the user's state a read may include, from the token's scopes by the one rule of the title
// route's private fields (actor-visibility.ts): watches need history:read, ratings / favourite / status
// need ratings:read, lists lists:read, collection collection:read. Also the day "aired" is measured against.
import type { Actor } from '../actor.ts';
import { visiblePrivateFields } from '../actor-visibility.ts';
import type { UserState } from './repository.ts';

export function userStateFor(actor: Actor): UserState {
  const visible = visiblePrivateFields(actor);
  return {
    historyOf: visible.watchHistory ? actor.userId : null,
    ratingsOf: visible.interaction ? actor.userId : null,
    listsOf: visible.userLists ? actor.userId : null,
    collectionOf: visible.collectionStatus ? actor.userId : null,
  };
}

/** The UTC day of `at` (default now), YYYY-MM-DD: an episode airs on its date everywhere at once, as the catalog stores it. */
export function utcDay(at: Date = new Date()): string {
  return at.toISOString().slice(0, 10);
}
