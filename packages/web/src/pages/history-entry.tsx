// One watch in the history: poster, name (to its title page), episode, time, and its two changes. "Edit
// date" opens a small form in place ("Watched at", "Save", "Cancel"); "Delete" asks once more
// ("Confirm delete", "Cancel") before anything is removed. Focus stays with the entry through each step.
import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { imageUrl } from '../ui/images.ts';
import { Poster } from '../ui/poster.tsx';
import { titlePath } from '../ui/title-link.tsx';
import { localDateTime, timeOfDay, type HistoryEntry } from './history-days.ts';

function episodeLabel(e: Pick<HistoryEntry, 'season' | 'episode' | 'episodeTitle'>): string | undefined {
  if (e.season === null || e.episode === null) return undefined;
  return `S${e.season} E${e.episode}${e.episodeTitle ? ` · ${e.episodeTitle}` : ''}`;
}

type Props = {
  entry: HistoryEntry;
  onEdit: (watchedAt: string) => void;
  onDelete: () => void;
};

export function HistoryEntryRow({ entry, onEdit, onDelete }: Props) {
  const [mode, setMode] = useState<'view' | 'editing' | 'confirming'>('view');
  const [value, setValue] = useState('');
  const field = useRef<HTMLInputElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef<'edit' | 'delete' | null>(null);
  const label = episodeLabel(entry);
  const fieldId = `watched-at-${entry.id}`;

  useEffect(() => {
    if (mode === 'editing') field.current?.focus();
    else if (mode === 'confirming') confirm.current?.focus();
    else if (returnFocus.current) (returnFocus.current === 'edit' ? editButton : deleteButton).current?.focus();
  }, [mode]);

  const close = (to: 'edit' | 'delete') => {
    returnFocus.current = to;
    setMode('view');
  };

  return (
    <li className="history-entry" id={`entry-${entry.id}`} tabIndex={-1}>
      <Poster title={{ name: entry.name, posterUrl: imageUrl(entry.posterPath) }} size="sm" />
      <div className="history-entry-text">
        <Link href={titlePath(entry)} className="history-entry-name">
          {entry.name}
        </Link>
        {label && <span className="history-entry-episode">{label}</span>}
        <time dateTime={entry.watchedAt} className="muted">
          {timeOfDay(entry.watchedAt)}
        </time>
      </div>
      {mode === 'editing' ? (
        <form
          className="history-entry-form"
          onSubmit={(e) => {
            e.preventDefault();
            const at = new Date(value);
            if (Number.isNaN(at.getTime())) return;
            close('edit');
            onEdit(at.toISOString());
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') close('edit');
          }}
        >
          <div className="field">
            <label htmlFor={fieldId}>Watched at</label>
            <input id={fieldId} ref={field} type="datetime-local" required value={value} onChange={(e) => setValue(e.target.value)} />
          </div>
          <div className="actions">
            <button type="submit" className="primary">
              Save
            </button>
            <button type="button" className="secondary" onClick={() => close('edit')}>
              Cancel
            </button>
          </div>
        </form>
      ) : mode === 'confirming' ? (
        <div className="actions history-entry-actions">
          <button type="button" ref={confirm} className="danger" onClick={onDelete}>
            Confirm delete
          </button>
          <button type="button" className="secondary" onClick={() => close('delete')}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="actions history-entry-actions">
          <button
            type="button"
            ref={editButton}
            className="secondary"
            onClick={() => {
              setValue(localDateTime(entry.watchedAt));
              setMode('editing');
            }}
          >
            Edit date
          </button>
          <button type="button" ref={deleteButton} className="secondary" onClick={() => setMode('confirming')}>
            Delete
          </button>
        </div>
      )}
    </li>
  );
}
