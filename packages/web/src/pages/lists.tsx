// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function ListsPage() {
  return <Page title="Lists"><p>Coming soon.</p></Page>;
}
