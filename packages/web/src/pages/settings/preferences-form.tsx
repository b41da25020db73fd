// The preferences part of Settings: the app preferences (region, language, spoiler settings, the
// watched threshold of playback) and the notification switches of each kind, saved together with "Save
// preferences". Each of the two records is sent only when something of it changed, and only what changed.
import { useMutation, useQueries } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api, queryClient, type PlatformOutputs } from '../../api.ts';
import { ErrorNote, Loading } from '../../ui/states.tsx';
import { Check, Field, FormNote } from './field.tsx';
import { readRefusal, type Refusal } from './refusal.ts';

type Prefs = PlatformOutputs['accountProfile']['preferences'];
type NotificationPrefs = PlatformOutputs['notifications']['preferences'];
type Kind = keyof NotificationPrefs;
type Spoiler = keyof Prefs['spoilers'];
type FieldName = 'region' | 'language' | 'watchedThreshold';

const prefsKey = ['settings', 'preferences'] as const;
const notificationPrefsKey = ['settings', 'notification-preferences'] as const;
const FIELDS: Record<FieldName, RegExp> = { region: /^region\b/i, language: /^language\b/i, watchedThreshold: /^watched ?threshold\b/i };

const SPOILERS: Record<Spoiler, [string, string]> = {
  hideEpisodeTitles: ['Hide episode titles', 'Of episodes you have not watched.'],
  hideOverviews: ['Hide overviews', 'Summaries of titles and episodes you have not watched.'],
  hideImages: ['Hide episode images', 'Stills of episodes you have not watched.'],
  hideRatings: ['Hide community ratings', 'Of titles you have not watched.'],
};

const KINDS: Record<Kind, string> = {
  list_invitation: 'List invitations',
  list_liked: 'Likes of your lists',
  new_episode: 'New episodes of shows you follow',
  trophy_earned: 'Trophies you earn',
};

type Draft = { region: string; language: string; spoilers: Prefs['spoilers']; threshold: string; notifications: NotificationPrefs };

const percent = (fraction: number) => String(Math.round(fraction * 1000) / 10);
const draftOf = (p: Prefs, n: NotificationPrefs): Draft => ({ region: p.region ?? '', language: p.language ?? '', spoilers: p.spoilers, threshold: percent(p.watchedThreshold), notifications: n });

type PrefsPatch = { region?: string | null; language?: string | null; spoilers?: Partial<Prefs['spoilers']>; watchedThreshold?: number | null };
type NotificationPatch = Partial<Record<Kind, { inApp?: boolean; push?: boolean }>>;

/** The two PATCH bodies (each undefined when nothing of it changed), or the field a value cannot be sent for. */
function changes(draft: Draft, saved: Draft): { prefs?: PrefsPatch; notifications?: NotificationPatch; invalid?: Partial<Record<FieldName, string>> } {
  const prefs: PrefsPatch = {};
  if (draft.region.trim() !== saved.region) prefs.region = draft.region.trim() || null;
  if (draft.language.trim() !== saved.language) prefs.language = draft.language.trim() || null;
  const spoilers = (Object.keys(SPOILERS) as Spoiler[]).filter((k) => draft.spoilers[k] !== saved.spoilers[k]);
  if (spoilers.length) prefs.spoilers = Object.fromEntries(spoilers.map((k) => [k, draft.spoilers[k]]));
  if (draft.threshold.trim() !== saved.threshold) {
    const text = draft.threshold.trim();
    const value = Number(text);
    // Only a value that is not a number at all is refused here; the range is the service's to check.
    if (text && !Number.isFinite(value)) return { invalid: { watchedThreshold: 'enter a percentage from 50 to 100, or leave it empty for 80' } };
    prefs.watchedThreshold = text ? value / 100 : null;
  }
  const notifications: NotificationPatch = {};
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const now = draft.notifications[kind];
    const was = saved.notifications[kind];
    const change: { inApp?: boolean; push?: boolean } = {};
    if (now.inApp !== was.inApp) change.inApp = now.inApp;
    if (now.push !== was.push) change.push = now.push;
    if (Object.keys(change).length) notifications[kind] = change;
  }
  return {
    ...(Object.keys(prefs).length ? { prefs } : {}),
    ...(Object.keys(notifications).length ? { notifications } : {}),
  };
}

export function PreferencesSection() {
  const [prefs, notifications] = useQueries({
    queries: [
      { queryKey: prefsKey, queryFn: () => api.platform.accountProfile.preferences.query() },
      { queryKey: notificationPrefsKey, queryFn: () => api.platform.notifications.preferences.query() },
    ],
  });
  const failed = prefs.isError ? prefs : notifications.isError ? notifications : undefined;
  return (
    <section aria-labelledby="preferences-heading" className="card settings-card">
      <h2 id="preferences-heading">Preferences</h2>
      {failed ? (
        <ErrorNote
          error={failed.error}
          onRetry={() => {
            if (prefs.isError) void prefs.refetch();
            if (notifications.isError) void notifications.refetch();
          }}
        />
      ) : prefs.data && notifications.data ? (
        <PreferencesForm prefs={prefs.data} notifications={notifications.data} />
      ) : (
        <Loading label="Loading your preferences" rows={5} />
      )}
    </section>
  );
}

/** The region's name in the reader's language ("US" -> "United States"), when the browser knows it. */
function regionName(code: string): string | undefined {
  if (!/^[A-Za-z]{2}$/.test(code)) return undefined;
  try {
    const name = new Intl.DisplayNames(undefined, { type: 'region' }).of(code.toUpperCase());
    return name && name !== code.toUpperCase() ? name : undefined;
  } catch {
    return undefined;
  }
}

function PreferencesForm({ prefs, notifications }: { prefs: Prefs; notifications: NotificationPrefs }) {
  const [saved, setSaved] = useState(() => draftOf(prefs, notifications));
  const [draft, setDraft] = useState(saved);
  const [refusal, setRefusal] = useState<Refusal<FieldName>>({ fields: {}, form: undefined });
  const [status, setStatus] = useState<string>();
  const form = useRef<HTMLFormElement>(null);

  const focusFirst = (fields: Partial<Record<FieldName, string>>) => {
    const first = (Object.keys(FIELDS) as FieldName[]).find((f) => fields[f]);
    if (first) form.current?.querySelector<HTMLElement>(`#pref-${first}`)?.focus();
  };

  // Both records go at once; one may be kept while the other is refused, so each answer is applied alone.
  const save = useMutation({
    mutationFn: async (body: { prefs?: PrefsPatch; notifications?: NotificationPatch }) => {
      const [p, n] = await Promise.allSettled([
        body.prefs ? api.platform.accountProfile.updatePreferences.mutate(body.prefs) : Promise.resolve(undefined),
        body.notifications ? api.platform.notifications.updatePreferences.mutate(body.notifications) : Promise.resolve(undefined),
      ]);
      const keptPrefs = p.status === 'fulfilled' ? p.value : undefined;
      const keptNotifications = n.status === 'fulfilled' ? n.value : undefined;
      if (keptPrefs) queryClient.setQueryData(prefsKey, keptPrefs);
      if (keptNotifications) queryClient.setQueryData(notificationPrefsKey, keptNotifications);
      const apply = (d: Draft): Draft => ({ ...(keptPrefs ? draftOf(keptPrefs, d.notifications) : d), ...(keptNotifications ? { notifications: keptNotifications } : {}) });
      setSaved(apply);
      setDraft(apply);
      if (p.status === 'rejected') throw p.reason;
      if (n.status === 'rejected') throw n.reason;
    },
    onSuccess: () => setStatus('Preferences saved.'),
    onError: (err) => {
      const r = readRefusal(err, FIELDS);
      setRefusal(r);
      setStatus(r.form ? undefined : 'Not saved: see the message under the field.');
      focusFirst(r.fields);
    },
  });

  const edit = (patch: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setStatus(undefined);
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (save.isPending) return;
    setRefusal({ fields: {}, form: undefined });
    const body = changes(draft, saved);
    if (body.invalid) {
      setRefusal({ fields: body.invalid, form: undefined });
      setStatus('Not saved: see the message under the field.');
      focusFirst(body.invalid);
      return;
    }
    if (!body.prefs && !body.notifications) {
      setStatus('Nothing to save: no preference has changed.');
      return;
    }
    setStatus('Saving…');
    save.mutate(body);
  };

  const region = regionName(draft.region);
  return (
    <form ref={form} onSubmit={onSubmit} noValidate aria-labelledby="preferences-heading">
      <fieldset>
        <legend>Region and language</legend>
        <Field id="pref-region" label="Region" hint={region ? `${region}. Two letters (ISO country code); leave it empty for none.` : 'Two letters, the ISO code of your country (for example US or GB); leave it empty for none.'} error={refusal.fields.region}>
          {(c) => <input {...c} type="text" className="short" autoComplete="country" autoCapitalize="characters" spellCheck={false} value={draft.region} onChange={(e) => edit({ region: e.target.value })} />}
        </Field>
        <Field id="pref-language" label="Language" hint="A language tag, for example en-US or pt-BR; leave it empty for none." error={refusal.fields.language}>
          {(c) => <input {...c} type="text" className="short" autoComplete="language" spellCheck={false} value={draft.language} onChange={(e) => edit({ language: e.target.value })} />}
        </Field>
      </fieldset>
      <fieldset>
        <legend>Spoilers</legend>
        <p className="field-hint">Apps that honour these settings hide what could spoil a title for you.</p>
        {(Object.keys(SPOILERS) as Spoiler[]).map((k) => (
          <Check key={k} id={`pref-${k}`} label={SPOILERS[k][0]} hint={SPOILERS[k][1]} checked={draft.spoilers[k]} onChange={(checked) => edit({ spoilers: { ...draft.spoilers, [k]: checked } })} />
        ))}
      </fieldset>
      <fieldset>
        <legend>Playback</legend>
        <Field id="pref-watchedThreshold" label="Count as watched at (percent)" hint="How much of a movie or episode played (50 to 100) logs it as watched when an app stops playing, unless the app says otherwise. Leave it empty for 80." error={refusal.fields.watchedThreshold}>
          {(c) => <input {...c} type="text" inputMode="decimal" className="short" value={draft.threshold} onChange={(e) => edit({ threshold: e.target.value })} />}
        </Field>
      </fieldset>
      <fieldset>
        <legend>Notifications</legend>
        <p className="field-hint">Off “In the app”: notifications of that kind are not kept in your inbox. Push is for apps that deliver it to your devices.</p>
        <div className="kinds">
          {(Object.keys(KINDS) as Kind[]).map((kind) => (
            <fieldset key={kind} className="kind">
              <legend>{KINDS[kind]}</legend>
              <Check id={`notify-${kind}-inApp`} label="In the app" checked={draft.notifications[kind].inApp} onChange={(inApp) => edit({ notifications: { ...draft.notifications, [kind]: { ...draft.notifications[kind], inApp } } })} />
              <Check id={`notify-${kind}-push`} label="Push" checked={draft.notifications[kind].push} onChange={(push) => edit({ notifications: { ...draft.notifications, [kind]: { ...draft.notifications[kind], push } } })} />
            </fieldset>
          ))}
        </div>
      </fieldset>
      <FormNote status={status} error={refusal.form} />
      <div className="actions">
        <button type="submit" className="primary">
          Save preferences
        </button>
      </div>
    </form>
  );
}
