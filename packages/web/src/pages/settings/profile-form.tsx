// The profile part of Settings: display name, avatar, bio and privacy, saved together with "Save
// profile". Only the fields that changed are sent (PATCH); the service's answer (the name trimmed, the
// avatar URL in its canonical form) becomes the form's new starting point.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api, queryClient, type PlatformOutputs } from '../../api.ts';
import { Avatar } from '../../ui/avatar.tsx';
import { ErrorNote, Loading } from '../../ui/states.tsx';
import { Check, Field, FormNote } from './field.tsx';
import { readRefusal, type Refusal } from './refusal.ts';

type Profile = PlatformOutputs['accountProfile']['profile'];
type Draft = { displayName: string; avatarUrl: string; bio: string; private: boolean };
type FieldName = 'displayName' | 'avatarUrl' | 'bio';

const profileKey = ['settings', 'profile'] as const;
const BIO_MAX = 500;
const FIELDS: Record<FieldName, RegExp> = { displayName: /^display ?name\b/i, avatarUrl: /^avatar ?url\b/i, bio: /^bio\b/i };

const draftOf = (p: Profile): Draft => ({ displayName: p.displayName, avatarUrl: p.avatarUrl ?? '', bio: p.bio, private: p.privacy === 'private' });

/** The PATCH body: the fields that differ from what is saved; empty text clears (the name back to the username). */
function changes(draft: Draft, saved: Draft) {
  const body: { displayName?: string | null; avatarUrl?: string | null; bio?: string; privacy?: 'public' | 'private' } = {};
  if (draft.displayName !== saved.displayName) body.displayName = draft.displayName.trim() || null;
  if (draft.avatarUrl !== saved.avatarUrl) body.avatarUrl = draft.avatarUrl.trim() || null;
  if (draft.bio !== saved.bio) body.bio = draft.bio;
  if (draft.private !== saved.private) body.privacy = draft.private ? 'private' : 'public';
  return body;
}

export function ProfileSection() {
  const q = useQuery({ queryKey: profileKey, queryFn: () => api.platform.accountProfile.profile.query() });
  return (
    <section aria-labelledby="profile-heading" className="card settings-card">
      <h2 id="profile-heading">Profile</h2>
      {q.isPending ? (
        <Loading label="Loading your profile" rows={4} />
      ) : q.isError ? (
        <ErrorNote error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <ProfileForm profile={q.data} />
      )}
    </section>
  );
}

function ProfileForm({ profile }: { profile: Profile }) {
  const [saved, setSaved] = useState(() => draftOf(profile));
  const [draft, setDraft] = useState(saved);
  const [refusal, setRefusal] = useState<Refusal<FieldName>>({ fields: {}, form: undefined });
  const [status, setStatus] = useState<string>();
  const form = useRef<HTMLFormElement>(null);

  const save = useMutation({
    mutationFn: (body: ReturnType<typeof changes>) => api.platform.accountProfile.updateProfile.mutate(body),
    onSuccess: (next) => {
      queryClient.setQueryData(profileKey, next);
      const d = draftOf(next);
      setSaved(d);
      setDraft(d);
      setStatus('Profile saved.');
    },
    onError: (err) => {
      const r = readRefusal(err, FIELDS);
      setRefusal(r);
      setStatus(r.form ? undefined : 'Not saved: see the message under the field.');
      const first = (Object.keys(FIELDS) as FieldName[]).find((f) => r.fields[f]);
      if (first) form.current?.querySelector<HTMLElement>(`#profile-${first}`)?.focus();
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
    if (Object.keys(body).length === 0) {
      setStatus('Nothing to save: no field has changed.');
      return;
    }
    setStatus('Saving…');
    save.mutate(body);
  };

  const bioLength = [...draft.bio.trim()].length;
  return (
    <form ref={form} onSubmit={onSubmit} noValidate aria-labelledby="profile-heading">
      <div className="profile-preview">
        <Avatar url={saved.avatarUrl || null} name={saved.displayName || profile.username} />
        <p>
          Signed in as <strong>@{profile.username}</strong>.{' '}
          {saved.private ? (
            <>Your profile is private: its public page says there is no user by that name.</>
          ) : (
            <Link href={`/u/${profile.username}`}>See your public profile</Link>
          )}
        </p>
      </div>
      <Field id="profile-displayName" label="Display name" hint={`What others see, up to 64 characters. Leave it empty to show your username, ${profile.username}.`} error={refusal.fields.displayName}>
        {(c) => <input {...c} type="text" autoComplete="nickname" value={draft.displayName} onChange={(e) => edit({ displayName: e.target.value })} />}
      </Field>
      <Field id="profile-avatarUrl" label="Avatar" hint="The https address of a picture of you. Leave it empty for none." error={refusal.fields.avatarUrl}>
        {(c) => <input {...c} type="url" inputMode="url" autoComplete="photo" placeholder="https://" value={draft.avatarUrl} onChange={(e) => edit({ avatarUrl: e.target.value })} />}
      </Field>
      <Field id="profile-bio" label="Bio" hint={`A few words about you: ${bioLength} of ${BIO_MAX} characters.`} error={refusal.fields.bio}>
        {(c) => <textarea {...c} rows={4} value={draft.bio} onChange={(e) => edit({ bio: e.target.value })} />}
      </Field>
      <Check
        id="profile-private"
        label="Private profile"
        hint="Your public page and your lists are hidden from everyone except the people you share a list with; to others your page looks like a username that does not exist."
        checked={draft.private}
        onChange={(checked) => edit({ private: checked })}
      />
      <FormNote status={status} error={refusal.form} />
      <div className="actions">
        <button type="submit" className="primary">
          Save profile
        </button>
      </div>
    </form>
  );
}
