// The app: its header, the live events while signed in, and a page per URL. Pages other than the home
// page are chunks of their own, loaded on first visit, so the first load carries only what it shows.
import { lazy, Suspense } from 'react';
import { Route, Switch } from 'wouter';
import { useLiveEvents } from './live.ts';
import { Header } from './ui/header.tsx';
import { Loading } from './ui/states.tsx';
import { HomePage } from './pages/home.tsx';

const TitlePage = lazy(() => import('./pages/title.tsx'));
const HistoryPage = lazy(() => import('./pages/history.tsx'));
const ListsPage = lazy(() => import('./pages/lists.tsx'));
const ListPage = lazy(() => import('./pages/list.tsx'));
const WatchlistPage = lazy(() => import('./pages/watchlist.tsx'));
const CollectionPage = lazy(() => import('./pages/collection.tsx'));
const CalendarPage = lazy(() => import('./pages/calendar.tsx'));
const StatsPage = lazy(() => import('./pages/stats.tsx'));
const NotificationsPage = lazy(() => import('./pages/notifications.tsx'));
const SettingsPage = lazy(() => import('./pages/settings.tsx'));
const ProfilePage = lazy(() => import('./pages/profile.tsx'));
const NotFoundPage = lazy(() => import('./pages/not-found.tsx'));

export function App({ notice }: { notice?: string | undefined }) {
  useLiveEvents();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      <main id="main" tabIndex={-1}>
        {notice && (
          <p className="error" role="alert">
            {notice}
          </p>
        )}
        <Suspense fallback={<Loading />}>
          <Switch>
            <Route path="/">
              <HomePage />
            </Route>
            <Route path="/title/:type/:id">{(p) => <TitlePage type={p.type} id={p.id} />}</Route>
            <Route path="/history">
              <HistoryPage />
            </Route>
            <Route path="/lists">
              <ListsPage />
            </Route>
            <Route path="/lists/:id">{(p) => <ListPage id={p.id} />}</Route>
            <Route path="/watchlist">
              <WatchlistPage />
            </Route>
            <Route path="/collection">
              <CollectionPage />
            </Route>
            <Route path="/calendar">
              <CalendarPage />
            </Route>
            <Route path="/stats">
              <StatsPage />
            </Route>
            <Route path="/notifications">
              <NotificationsPage />
            </Route>
            <Route path="/settings">
              <SettingsPage />
            </Route>
            <Route path="/u/:username">{(p) => <ProfilePage username={p.username} />}</Route>
            <Route>
              <NotFoundPage />
            </Route>
          </Switch>
        </Suspense>
      </main>
    </>
  );
}
