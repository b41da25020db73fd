// Settings: the profile (display name, avatar, bio, privacy), the preferences (app preferences and
// notification switches), the calendar feed, the media-server receivers, and the account pages the
// service serves itself (connected apps, developer apps, import, export). Those are plain links: they
// are pages of the service, outside this app.
import { Page } from '../ui/page.tsx';
import { SignedIn } from '../ui/signed-in.tsx';
import { CalendarFeedSection } from './settings/calendar-feed.tsx';
import { MediaServersSection } from './settings/media-servers.tsx';
import { PreferencesSection } from './settings/preferences-form.tsx';
import { ProfileSection } from './settings/profile-form.tsx';
import './settings/settings.css';

const ACCOUNT_PAGES = [
  ['/account/connected-apps', 'Connected apps', 'Apps you have let use your account; take access back from any of them.'],
  ['/account/apps', 'Developer apps', 'Register your own apps that use the API.'],
  ['/account/import', 'Import', 'Bring your history, ratings and lists from another service or a file.'],
  ['/account/export', 'Export', 'Download everything you keep here, in one file.'],
] as const;

export default function SettingsPage() {
  return (
    <Page title="Settings">
      <SignedIn what="your settings">
        <div className="settings">
          <ProfileSection />
          <PreferencesSection />
          <CalendarFeedSection />
          <MediaServersSection />
          <section aria-labelledby="account-heading" className="card settings-card">
            <h2 id="account-heading">Account</h2>
            <ul className="account-links">
              {ACCOUNT_PAGES.map(([href, label, what], i) => (
                <li key={href}>
                  <a href={href} className="account-link" aria-describedby={`account-link-${i}`}>
                    {label}
                  </a>
                  <span id={`account-link-${i}`} className="field-hint">
                    {what}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        </div>
      </SignedIn>
    </Page>
  );
}
