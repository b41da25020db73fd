// The media-server part of Settings: receivers whose secret URLs Plex, Jellyfin and Emby post their
// playback to. Creating one (or giving it new URLs) shows its three URLs once, each with a Copy button
// and how to set that server up; the list says what each receiver received and which titles the catalog
// did not have. New URLs and Delete each ask once more: both stop the old URLs at once.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { api, queryClient, type PlatformOutputs } from '../../api.ts';
import { errorText } from '../../errors.ts';
import { Empty, ErrorNote, Loading } from '../../ui/states.tsx';
import { Field, FormNote } from './field.tsx';
import { readRefusal, type Refusal } from './refusal.ts';
import './media-servers.css';

type Receiver = PlatformOutputs['mediaServerHooks']['list']['items'][number];
type WithSecret = PlatformOutputs['mediaServerHooks']['create'];
type Kind = keyof WithSecret['urls'];
type FieldName = 'label' | 'accountFilter';

const receiversKey = ['settings', 'media-servers'] as const;
const FIELDS: Record<FieldName, RegExp> = { label: /^label\b/i, accountFilter: /^accountFilter\b/i };

const SERVERS: Record<Kind, { name: string; setup: ReactNode }> = {
  plex: {
    name: 'Plex',
    setup: <>In Plex Web: Account settings, Webhooks, Add webhook; paste the Plex URL and save (webhooks need Plex Pass).</>,
  },
  jellyfin: {
    name: 'Jellyfin',
    setup: (
      <>
        Install the Webhook plugin, then Dashboard, Plugins, Webhook, Add Generic Destination: paste the Jellyfin URL, tick Playback Start, Playback Progress and Playback Stop, Movies
        and Episodes, and Send All Properties.
      </>
    ),
  },
  emby: {
    name: 'Emby',
    setup: <>In Emby: Settings, Notifications (Webhooks on older servers), add a webhook: paste the Emby URL, choose the playback events and, if asked, application/json.</>,
  },
};
const KINDS = Object.keys(SERVERS) as Kind[];

const when = (iso: string) => new Date(iso).toLocaleString();

export function MediaServersSection() {
  const q = useQuery({ queryKey: receiversKey, queryFn: () => api.platform.mediaServerHooks.list.query() });
  const [shown, setShown] = useState<WithSecret>();
  const replace = (next: Receiver) =>
    queryClient.setQueryData(receiversKey, (old: { items: Receiver[] } | undefined) => ({ items: [...(old?.items ?? []).filter((r) => r.id !== next.id), next].sort((a, b) => a.id - b.id) }));
  const onSecret = (created: WithSecret) => {
    const { secret: _secret, urls: _urls, ...receiver } = created;
    replace(receiver);
    setShown(created);
  };
  return (
    <section aria-labelledby="media-servers-heading" className="card settings-card media-servers">
      <h2 id="media-servers-heading">Media servers</h2>
      <p className="field-hint">
        Plex, Jellyfin and Emby can tell this service what you play. Make a receiver, paste its URL into your server’s webhook settings, and what you watch there lands in your history and Continue
        Watching. Anyone holding the URL can post plays for you: keep it like a password.
      </p>
      {shown && <SecretUrls receiver={shown} onDone={() => setShown(undefined)} />}
      {q.isPending ? (
        <Loading label="Loading your receivers" rows={2} />
      ) : q.isError ? (
        <ErrorNote error={q.error} onRetry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <Empty>
          <p>No receiver yet.</p>
        </Empty>
      ) : (
        <ul className="receivers">
          {q.data.items.map((r) => (
            <ReceiverItem key={r.id} receiver={r} onSecret={onSecret} />
          ))}
        </ul>
      )}
      <CreateReceiver onCreated={onSecret} />
    </section>
  );
}

/** The URLs of a receiver just made or given new ones: shown this once. */
function SecretUrls({ receiver, onDone }: { receiver: WithSecret; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [receiver.secret]);
  return (
    <div className="card secret-urls" role="group" aria-labelledby="secret-urls-heading">
      <h3 id="secret-urls-heading" ref={heading} tabIndex={-1}>
        URLs of “{receiver.label}”
      </h3>
      <p>Copy them now: they are shown only this once. If you lose them, give the receiver new URLs.</p>
      {KINDS.map((kind) => (
        <CopyField key={kind} id={`url-${kind}`} label={`${SERVERS[kind].name} URL`} value={receiver.urls[kind]} hint={SERVERS[kind].setup} />
      ))}
      <button type="button" className="primary" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function CopyField({ id, label, value, hint }: { id: string; label: string; value: string; hint: ReactNode }) {
  const input = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<string>();
  const copy = async () => {
    input.current?.select();
    try {
      await navigator.clipboard.writeText(value);
      setStatus('Copied.');
    } catch {
      setStatus('Selected: copy it with your keyboard.');
    }
  };
  return (
    <Field id={id} label={label} hint={hint}>
      {(c) => (
        <div className="copy-field">
          <input {...c} ref={input} type="text" readOnly value={value} spellCheck={false} onFocus={(e) => e.target.select()} />
          <button type="button" className="secondary" onClick={() => void copy()} aria-label={`Copy the ${label}`}>
            Copy
          </button>
          <span className="copy-status" role="status">
            {status}
          </span>
        </div>
      )}
    </Field>
  );
}

function ReceiverItem({ receiver, onSecret }: { receiver: Receiver; onSecret: (r: WithSecret) => void }) {
  const headingId = `receiver-${receiver.id}`;
  const counts = KINDS.map((k) => `${SERVERS[k].name} ${receiver.events[k]}`).join(' · ');
  const rotate = useMutation({ mutationFn: () => api.platform.mediaServerHooks.rotate.mutate({ id: receiver.id }), onSuccess: onSecret });
  const remove = useMutation({
    mutationFn: () => api.platform.mediaServerHooks.remove.mutate({ id: receiver.id }),
    onSuccess: () => queryClient.setQueryData(receiversKey, (old: { items: Receiver[] } | undefined) => ({ items: (old?.items ?? []).filter((r) => r.id !== receiver.id) })),
  });
  return (
    <li className="receiver">
      <h3 id={headingId}>{receiver.label}</h3>
      <p className="field-hint">
        {receiver.accountFilter ? `Only the server account “${receiver.accountFilter}”.` : 'Every account of the server counts.'} Events received: {counts}.{' '}
        {receiver.lastEventAt ? `Last event ${when(receiver.lastEventAt)}.` : 'Nothing received yet.'}
      </p>
      {receiver.deferred.length > 0 && (
        <details className="deferred">
          <summary>Not in the catalog yet ({receiver.deferred.length})</summary>
          <ul>
            {receiver.deferred.map((d, i) => (
              <li key={i}>
                {d.title}
                {d.year ? ` (${d.year})` : ''}
                {d.season !== null && d.episode !== null ? ` S${d.season}E${d.episode}` : ''} — {SERVERS[d.kind].name}, {when(d.receivedAt)}
              </li>
            ))}
          </ul>
        </details>
      )}
      <p className="actions">
        <Confirmed label="New URLs" question={`Give “${receiver.label}” new URLs? The old ones stop working at once: your servers need the new ones.`} yes="Yes, new URLs" action={rotate} />
        <Confirmed label="Delete" question={`Delete “${receiver.label}”? Its URLs stop working at once. What it recorded stays.`} yes="Yes, delete" action={remove} danger />
      </p>
    </li>
  );
}

type Action = { mutate: () => void; reset: () => void; isPending: boolean; isError: boolean; isSuccess: boolean; error: unknown };

/** A button that asks once more before its action; Cancel (or Escape) goes back to the button. */
function Confirmed({ label, question, yes, action, danger = false }: { label: string; question: string; yes: string; action: Action; danger?: boolean }) {
  const [confirming, setConfirming] = useState(false);
  const start = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) cancel.current?.focus();
  }, [confirming]);
  useEffect(() => {
    if (action.isSuccess) setConfirming(false);
  }, [action.isSuccess]);
  if (!confirming) {
    return (
      <button ref={start} type="button" className={danger ? 'danger' : 'secondary'} onClick={() => {
          action.reset();
          setConfirming(true);
        }}>
        {label}
      </button>
    );
  }
  const back = () => {
    setConfirming(false);
    action.reset();
    requestAnimationFrame(() => start.current?.focus());
  };
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      {action.isError && (
        <span className="error" role="alert">
          {errorText(action.error)}
        </span>
      )}
      <button type="button" className={danger ? 'danger' : 'primary'} aria-busy={action.isPending} onClick={() => action.isPending || action.mutate()}>
        {yes}
      </button>
      <button ref={cancel} type="button" className="secondary" onClick={back} onKeyDown={(e) => e.key === 'Escape' && back()}>
        Cancel
      </button>
    </span>
  );
}

function CreateReceiver({ onCreated }: { onCreated: (r: WithSecret) => void }) {
  const [label, setLabel] = useState('');
  const [account, setAccount] = useState('');
  const [refusal, setRefusal] = useState<Refusal<FieldName>>({ fields: {}, form: undefined });
  const form = useRef<HTMLFormElement>(null);
  const create = useMutation({
    mutationFn: () => api.platform.mediaServerHooks.create.mutate({ label, ...(account.trim() ? { accountFilter: account } : {}) }),
    onSuccess: (created) => {
      setLabel('');
      setAccount('');
      onCreated(created);
    },
    onError: (err) => {
      const r = readRefusal(err, FIELDS);
      setRefusal(r);
      const first = (Object.keys(FIELDS) as FieldName[]).find((f) => r.fields[f]);
      if (first) form.current?.querySelector<HTMLElement>(`#receiver-${first}`)?.focus();
    },
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (create.isPending) return;
    setRefusal({ fields: {}, form: undefined });
    create.mutate();
  };
  return (
    <form ref={form} onSubmit={onSubmit} noValidate aria-labelledby="new-receiver-heading">
      <fieldset>
        <legend id="new-receiver-heading">New receiver</legend>
        <Field id="receiver-label" label="Receiver name" hint="What it is for, for example “Living room Plex”." error={refusal.fields.label}>
          {(c) => <input {...c} type="text" value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} />}
        </Field>
        <Field
          id="receiver-accountFilter"
          label="Only this server account (optional)"
          hint="Your user name (or id) on the server. A shared server reports everyone’s plays: with a name here, only yours count. Leave it empty to count every account."
          error={refusal.fields.accountFilter}
        >
          {(c) => <input {...c} type="text" className="short" value={account} maxLength={200} autoComplete="off" spellCheck={false} onChange={(e) => setAccount(e.target.value)} />}
        </Field>
      </fieldset>
      <FormNote status={undefined} error={refusal.form} />
      <button type="submit" className="primary" aria-busy={create.isPending}>
        Create receiver
      </button>
    </form>
  );
}
