// The search field of the header, on every page: results as you type (the catalog's search is
// typo-tolerant), as a combobox: arrow keys move through the results, Enter opens one, Escape closes the
// list, and `/` anywhere on the page puts the cursor in the field.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { api } from '../api.ts';
import { errorText } from '../errors.ts';
import { Poster } from './poster.tsx';
import { titlePath } from './title-link.tsx';

const DEBOUNCE_MS = 150;

function useDebounced(value: string): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(value), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [value]);
  return debounced;
}

export function Search() {
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [, navigate] = useLocation();
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const q = useDebounced(text.trim());
  const results = useQuery({
    queryKey: ['search', q],
    queryFn: () => api.public.catalog.search.query({ q, limit: 8 }),
    enabled: q.length > 0,
    staleTime: 60_000,
  });
  const items = q.length > 0 ? (results.data?.items ?? []) : [];

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      const typing = target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
      if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        input.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const go = (i: number) => {
    const item = items[i];
    if (!item) return;
    setOpen(false);
    setText('');
    navigate(titlePath(item));
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setOpen(true);
      setActive((a) => Math.min(items.length - 1, a + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(0, a - 1));
    } else if (e.key === 'Enter') {
      if (open && items.length) {
        e.preventDefault();
        go(active >= 0 ? active : 0);
      }
    } else if (e.key === 'Escape') {
      setOpen(false);
      setActive(-1);
    }
  };

  const showList = open && q.length > 0;
  return (
    <div className="search" role="search">
      <input
        ref={input}
        type="search"
        aria-label="Search"
        placeholder="Search titles  ( / )"
        role="combobox"
        aria-expanded={showList}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={showList && active >= 0 ? `${listId}-${active}` : undefined}
        autoComplete="off"
        spellCheck={false}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKeyDown}
      />
      {showList && results.isError && <p className="search-note" role="alert">{errorText(results.error)}</p>}
      {showList && results.isSuccess && items.length === 0 && <p className="search-note" role="status">No titles match “{q}”.</p>}
      {showList && items.length > 0 && (
        <ul id={listId} role="listbox" aria-label="Search results" className="search-results">
          {items.map((item, i) => (
            <li
              key={item.id}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : undefined}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => go(i)}
            >
              <Poster title={item} size="sm" />
              <span>
                {item.name} <span className="muted">{item.year > 0 ? `(${item.year})` : ''} · {item.type === 'movie' ? 'Movie' : item.isAnime ? 'Anime' : 'Show'}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
