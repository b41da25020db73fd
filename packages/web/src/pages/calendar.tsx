// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function CalendarPage() {
  return <Page title="Calendar"><p>Coming soon.</p></Page>;
}
