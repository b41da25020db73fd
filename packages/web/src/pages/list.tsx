// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function ListPage(_props: { id: string }) {
  return <Page title="List"><p>Coming soon.</p></Page>;
}
