// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function WatchlistPage() {
  return <Page title="Watchlist"><p>Coming soon.</p></Page>;
}
