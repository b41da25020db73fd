// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function StatsPage() {
  return <Page title="Stats"><p>Coming soon.</p></Page>;
}
