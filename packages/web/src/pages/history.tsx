// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function HistoryPage() {
  return <Page title="History"><p>Coming soon.</p></Page>;
}
