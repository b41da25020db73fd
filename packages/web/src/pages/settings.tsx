// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function SettingsPage() {
  return <Page title="Settings"><p>Coming soon.</p></Page>;
}
