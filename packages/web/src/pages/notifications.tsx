// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function NotificationsPage() {
  return <Page title="Notifications"><p>Coming soon.</p></Page>;
}
