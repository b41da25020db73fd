// An address the app does not have.
import { Link } from 'wouter';
import { Page } from '../ui/page.tsx';

export default function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>
        There is no page at this address. Go <Link href="/">home</Link> or search for a title above.
      </p>
    </Page>
  );
}
