// The scopes a consent page asks for, as a person reads them. A few are listed one by one; many (an app
// may ask for all 16) are summarised as two lines, what the app may see and what it may change, area by
// area, with every scope still one tap away in a <details>: a long list would push Allow and Deny off a
// phone's first screen.
import { SCOPE_DESCRIPTIONS, isScope } from '../../core/apps/scopes.ts';
import { escapeHtml } from './layout.ts';

/** Up to this many, every scope is listed with its words; four short items and the buttons fit a phone. */
const LISTED_IN_FULL = 4;

/** What an area (a scope's part before the colon) is called in a sentence. */
const AREA_NAMES: Readonly<Record<string, string>> = {
  profile: 'profile',
  history: 'watch history',
  lists: 'lists',
  ratings: 'ratings and favourites',
  collection: 'collection',
  notifications: 'notifications',
  trophies: 'trophies',
  playback: 'playback progress',
  events: 'live playback events',
};

type Group = { heading: string; scopes: string[] };

/** Reads apart from everything else: a `:write` scope, or one the list does not know, may change data. */
function groups(scopes: string[]): Group[] {
  const see = scopes.filter((s) => isScope(s) && s.endsWith(':read'));
  const change = scopes.filter((s) => !see.includes(s));
  return [
    { heading: 'See', scopes: see },
    { heading: 'Change', scopes: change },
  ].filter((g) => g.scopes.length > 0);
}

const area = (scope: string) => {
  const name = scope.split(':')[0]!;
  return AREA_NAMES[name] ?? scope;
};

const item = (s: string) => `<li><strong>${escapeHtml(isScope(s) ? SCOPE_DESCRIPTIONS[s] : s)}</strong> <small>(${escapeHtml(s)})</small></li>`;

export function scopeList(scopes: string[]): string {
  if (scopes.length <= LISTED_IN_FULL) return `<ul class="scopes">${scopes.map(item).join('')}</ul>`;
  const all = groups(scopes);
  const summary = all.map((g) => `<li><strong>${g.heading}:</strong> ${escapeHtml([...new Set(g.scopes.map(area))].join(', '))}</li>`).join('');
  const detail = all
    .map((g, i) => `<h2 id="scopes-${i}">${g.heading}</h2><ul class="scopes" aria-labelledby="scopes-${i}">${g.scopes.map(item).join('')}</ul>`)
    .join('');
  return `<ul class="scope-groups">${summary}</ul>
     <details class="scopes"><summary>All ${scopes.length} permissions</summary>${detail}</details>`;
}
