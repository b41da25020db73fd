// Placeholder until this page is built.
import { Page } from '../ui/page.tsx';

export default function ProfilePage(_props: { username: string }) {
  return <Page title="Profile"><p>Coming soon.</p></Page>;
}
