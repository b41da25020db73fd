// Who may change the list's items: its owner and the users who accepted an invitation. The owner invites
// by username ("Invite") and removes a collaborator or an invitation; a collaborator may leave. The
// service lists accepted collaborators only, so invitations sent on this visit show as pending here.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api } from '../../api.ts';
import { errorText } from '../../errors.ts';
import { listKeys, meKey } from '../../ui/list-keys.ts';
import { useToast } from '../../ui/toast.tsx';
import { useListChange, withList, type ListInfo } from './data.ts';

export function Collaborators({ list }: { list: ListInfo }) {
  const [invited, setInvited] = useState<string[]>([]);
  const remove = useListChange(
    list.id,
    (username: string) => api.platform.lists.removeCollaborator.mutate({ id: list.id, username }),
    (d, username) => withList(d, (l) => ({ ...l, collaborators: l.collaborators.filter((c) => c.username !== username) })),
    { onSuccess: (r) => setInvited((all) => all.filter((u) => u !== r.username)) },
  );
  const people = [...list.collaborators.map((c) => ({ username: c.username, pending: false })), ...invited.filter((u) => !list.collaborators.some((c) => c.username === u)).map((username) => ({ username, pending: true }))];
  return (
    <section aria-labelledby="collaborators" className="row-section">
      <h2 id="collaborators">Collaborators</h2>
      <ul className="people">
        <li>
          <Link href={`/u/${list.ownerUsername}`} className="person">
            {list.ownerUsername}
          </Link>{' '}
          <span className="muted">owner</span>
        </li>
        {people.map((p) => (
          <li key={p.username}>
            <Link href={`/u/${p.username}`} className="person">
              {p.username}
            </Link>{' '}
            {p.pending && <span className="muted">invited, not accepted yet</span>}
            {list.isOwner && (
              <button type="button" className="secondary" onClick={() => remove.mutate(p.username)}>
                {p.pending ? `Cancel invitation of ${p.username}` : `Remove collaborator ${p.username}`}
              </button>
            )}
          </li>
        ))}
      </ul>
      {list.isOwner && !list.isWatchlist && !list.externalSource && <InviteForm listId={list.id} onInvited={(u) => setInvited((all) => [...all.filter((x) => x !== u), u])} />}
      {list.isCollaborator && <LeaveList list={list} />}
      {list.isOwner && !people.length && <p className="muted">Invite someone by username to add and reorder titles with you.</p>}
    </section>
  );
}

function InviteForm({ listId, onInvited }: { listId: number; onInvited: (username: string) => void }) {
  const id = useId();
  const qc = useQueryClient();
  const toast = useToast();
  const [username, setUsername] = useState('');
  const invite = useMutation({
    mutationFn: (name: string) => api.platform.lists.invite.mutate({ id: listId, username: name }),
    onSuccess: (r) => {
      setUsername('');
      if (r.status === 'accepted') {
        toast(`${r.username} already collaborates on this list.`);
        void qc.invalidateQueries({ queryKey: listKeys.detail(listId) });
      } else {
        onInvited(r.username);
        toast(`Invited ${r.username}. They accept from their Lists page.`);
      }
    },
  });
  return (
    <form
      className="invite"
      aria-label="Invite a collaborator"
      onSubmit={(e) => {
        e.preventDefault();
        const name = username.trim();
        if (name && !invite.isPending) invite.mutate(name);
      }}
    >
      <div className="field">
        <label htmlFor={`${id}-username`}>Username</label>
        <span className="invite-row">
          <input id={`${id}-username`} type="text" required maxLength={32} autoComplete="off" autoCapitalize="none" spellCheck={false} value={username} onChange={(e) => setUsername(e.target.value)} />
          <button type="submit" className="primary" aria-busy={invite.isPending}>
            Invite
          </button>
        </span>
      </div>
      {invite.isError && (
        <p className="error" role="alert">
          {errorText(invite.error)}
        </p>
      )}
    </form>
  );
}

/** A collaborator leaves (the service's remove call by their own name); the list stays readable if it is public. */
function LeaveList({ list }: { list: ListInfo }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [, navigate] = useLocation();
  const me = useQuery({ queryKey: meKey, queryFn: () => api.platform.me.get.query(), staleTime: 300_000 });
  const leave = useMutation({
    mutationFn: () => api.platform.lists.removeCollaborator.mutate({ id: list.id, username: me.data!.username }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: listKeys.all });
      toast(`You left “${list.name}”.`);
      navigate('/lists');
    },
    onError: (err) => toast(errorText(err), 'error'),
  });
  if (!me.data) return null;
  return (
    <p className="actions">
      <button type="button" className="secondary" onClick={() => leave.isPending || leave.mutate()}>
        Leave list
      </button>
    </p>
  );
}
