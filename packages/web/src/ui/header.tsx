// The header of every page: the app's name, the sections, the search field, the notifications badge
// (live: the unread count arrives with the live events) and the account menu. On a phone the sections
// fold behind a "Menu" button.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api } from '../api.ts';
import { signIn, signOut } from '../auth.ts';
import { keys } from '../live.ts';
import { queryClient } from '../api.ts';
import { BellIcon, GearIcon } from './icons.tsx';
import { Search } from './search.tsx';
import { useSignedIn } from './signed-in.tsx';

const SECTIONS = [
  ['/', 'Home'],
  ['/history', 'History'],
  ['/lists', 'Lists'],
  ['/watchlist', 'Watchlist'],
  ['/collection', 'Collection'],
  ['/calendar', 'Calendar'],
  ['/stats', 'Stats'],
] as const;

function UnreadBadge() {
  const unread = useQuery({ queryKey: keys.unread, queryFn: () => api.platform.notifications.unreadCount.query(), staleTime: 60_000 });
  const count = unread.data?.unread ?? 0;
  return (
    <Link href="/notifications" className="icon-link" aria-label={count ? `Notifications, ${count} unread` : 'Notifications'}>
      <BellIcon />
      {count > 0 && (
        <span className="badge" aria-hidden="true">
          {count > 99 ? '99+' : count}
        </span>
      )}
    </Link>
  );
}

export function Header() {
  const signedIn = useSignedIn();
  const [location, navigate] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const current = (href: string) => (href === '/' ? location === '/' : location.startsWith(href));
  return (
    <header className="app-header">
      <div className="header-row">
        <Link href="/" className="brand">
          Media Tracker
        </Link>
        <button type="button" className="menu-button secondary" aria-expanded={menuOpen} aria-controls="sections" onClick={() => setMenuOpen((o) => !o)}>
          Menu
        </button>
        <Search />
        {signedIn ? (
          <div className="header-actions">
            <UnreadBadge />
            <Link href="/settings" className="icon-link" aria-label="Settings">
              <GearIcon />
            </Link>
            <button
              type="button"
              className="secondary"
              onClick={async () => {
                await signOut();
                queryClient.clear();
                navigate('/');
              }}
            >
              Sign out
            </button>
          </div>
        ) : (
          <div className="header-actions">
            <button type="button" className="primary" onClick={() => void signIn()}>
              Sign in
            </button>
          </div>
        )}
      </div>
      <nav id="sections" aria-label="Sections" className={menuOpen ? 'sections open' : 'sections'}>
        <ul>
          {SECTIONS.map(([href, label]) => (
            <li key={href}>
              <Link href={href} aria-current={current(href) ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}
