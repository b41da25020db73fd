// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function CollectionPage() {
  return <Page title="Collection"><p>Coming soon.</p></Page>;
}
