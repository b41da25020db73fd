// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function TitlePage(_props: { type: string; id: string }) {
  return <Page title="Title"><p>Coming soon.</p></Page>;
}
