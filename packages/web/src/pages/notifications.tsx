// Notifications: the inbox, newest first, in cursor pages ("Load more"). Unread ones stand out and say
// so in words; "Mark read" marks one, "Mark all read" every one. Both change the inbox and the header's
// badge at once (optimistic) and put them back, with a message, when the service refuses; the live
// event `notifications.unread` keeps the badge right when another app marks or a new one arrives.
import { useInfiniteQuery, useMutation, useQuery, type InfiniteData } from '@tanstack/react-query';
import { useRef } from 'react';
import { Link } from 'wouter';
import { api, queryClient, type PlatformOutputs } from '../api.ts';
import { errorText } from '../errors.ts';
import { keys } from '../live.ts';
import { Page } from '../ui/page.tsx';
import { SignedIn } from '../ui/signed-in.tsx';
import { Empty, ErrorNote, Loading } from '../ui/states.tsx';
import { useToast } from '../ui/toast.tsx';
import './notifications/notifications.css';

type InboxPage = PlatformOutputs['notifications']['list'];
type Notification = InboxPage['items'][number];
type Inbox = InfiniteData<InboxPage, string | undefined>;
type Unread = { unread: number };

const PAGE_SIZE = 20;

/** Where a notification points, by kind: the list, the show, or the trophies on the stats page. */
function targetOf(n: Notification): { href: string; label: string } | undefined {
  const d = n.data;
  switch (n.kind) {
    case 'list_invitation':
    case 'list_liked':
      return typeof d.listId === 'number' ? { href: `/lists/${d.listId}`, label: 'Open the list' } : undefined;
    case 'new_episode':
      return (d.type === 'show' || d.type === 'movie') && typeof d.movieDbId === 'number' ? { href: `/title/${d.type}/${d.movieDbId}`, label: 'Open the show' } : undefined;
    case 'trophy_earned':
      return { href: '/stats', label: 'See your trophies' };
    default:
      return undefined;
  }
}

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Sets every cached inbox item `mark` says to read, as the service will. */
function markInCache(mark: (n: Notification) => boolean): void {
  const now = new Date().toISOString();
  queryClient.setQueryData<Inbox>(keys.notifications, (data) =>
    data && { ...data, pages: data.pages.map((p) => ({ ...p, items: p.items.map((n) => (!n.read && mark(n) ? { ...n, read: true, readAt: now } : n)) })) },
  );
}

/** The optimistic side of both marks: the inbox and the badge change now; the returned function puts them back. */
async function optimistic(mark: (n: Notification) => boolean, unreadAfter: (unread: number) => number): Promise<() => void> {
  await queryClient.cancelQueries({ queryKey: keys.notifications });
  await queryClient.cancelQueries({ queryKey: keys.unread });
  const inbox = queryClient.getQueryData<Inbox>(keys.notifications);
  const unread = queryClient.getQueryData<Unread>(keys.unread);
  markInCache(mark);
  if (unread) queryClient.setQueryData<Unread>(keys.unread, { unread: Math.max(0, unreadAfter(unread.unread)) });
  return () => {
    queryClient.setQueryData(keys.notifications, inbox);
    queryClient.setQueryData(keys.unread, unread);
  };
}

const refresh = () => {
  void queryClient.invalidateQueries({ queryKey: keys.notifications }, { cancelRefetch: false });
  void queryClient.invalidateQueries({ queryKey: keys.unread }, { cancelRefetch: false });
};

function useMarks() {
  const toast = useToast();
  const markOne = useMutation({
    mutationFn: (n: Notification) => api.platform.notifications.markRead.mutate({ id: n.id }),
    onMutate: (n) => optimistic((x) => x.id === n.id, (u) => (n.read ? u : u - 1)),
    onError: (err, _n, undo) => {
      undo?.();
      toast(`Not marked read: ${errorText(err)}`, 'error');
    },
    onSettled: refresh,
  });
  const markAll = useMutation({
    mutationFn: () => api.platform.notifications.markAllRead.mutate(),
    onMutate: () => optimistic(() => true, () => 0),
    onError: (err, _v, undo) => {
      undo?.();
      toast(`Not marked read: ${errorText(err)}`, 'error');
    },
    onSettled: refresh,
  });
  return { markOne, markAll };
}

function Item({ n, onMark }: { n: Notification; onMark: (n: Notification, focusAfter: HTMLElement | null) => void }) {
  const article = useRef<HTMLElement>(null);
  const target = targetOf(n);
  const titleId = `notification-${n.id}`;
  return (
    <li>
      <article ref={article} tabIndex={-1} className={n.read ? 'notification' : 'notification unread'} aria-labelledby={titleId}>
        <div className="notification-text">
          <h2 id={titleId} className="notification-title">
            {!n.read && <span className="unread-label">Unread</span>}
            {target ? (
              <Link href={target.href} onClick={() => !n.read && onMark(n, null)}>
                {n.title}
              </Link>
            ) : (
              n.title
            )}
          </h2>
          {n.body && <p className="notification-body">{n.body}</p>}
          <p className="notification-meta">
            <time dateTime={n.createdAt}>{when(n.createdAt)}</time>
            {n.read && <span> · Read</span>}
          </p>
        </div>
        {!n.read && (
          <button type="button" className="secondary" aria-describedby={titleId} onClick={() => onMark(n, article.current)}>
            Mark read
          </button>
        )}
      </article>
    </li>
  );
}

function Inbox() {
  const inbox = useInfiniteQuery({
    queryKey: keys.notifications,
    queryFn: ({ pageParam }) => api.platform.notifications.list.query({ limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
  });
  const unread = useQuery({ queryKey: keys.unread, queryFn: () => api.platform.notifications.unreadCount.query(), staleTime: 60_000 });
  const { markOne, markAll } = useMarks();

  if (inbox.isPending) return <Loading label="Loading your notifications" rows={4} />;
  if (!inbox.data) return <ErrorNote error={inbox.error} onRetry={() => void inbox.refetch()} />;
  const items = inbox.data.pages.flatMap((p) => p.items);
  if (items.length === 0) {
    return (
      <Empty>
        <p>No notifications yet. You hear here when someone invites you to a list or likes one of yours, when a show you follow has a new episode, and when you earn a trophy.</p>
        <p>
          Choose which ones you get in <Link href="/settings">Settings</Link>.
        </p>
      </Empty>
    );
  }
  const unreadCount = unread.data?.unread ?? items.filter((n) => !n.read).length;
  const none = unreadCount === 0;
  return (
    <>
      <div className="inbox-bar">
        <p role="status" className="inbox-count">
          {none ? 'All read.' : `${unreadCount} unread.`}
        </p>
        <button
          type="button"
          className="secondary"
          aria-disabled={none || undefined}
          onClick={() => {
            if (!none && !markAll.isPending) markAll.mutate();
          }}
        >
          Mark all read
        </button>
      </div>
      <ul className="inbox" aria-label="Notifications">
        {items.map((n) => (
          <Item
            key={n.id}
            n={n}
            onMark={(x, focusAfter) => {
              markOne.mutate(x);
              // The button goes away with the unread state; the keyboard stays on this notification.
              focusAfter?.focus();
            }}
          />
        ))}
      </ul>
      {inbox.isError && <ErrorNote error={inbox.error} onRetry={() => void (inbox.isFetchNextPageError ? inbox.fetchNextPage() : inbox.refetch())} />}
      {inbox.hasNextPage && (
        <p className="actions">
          <button type="button" className="secondary" aria-disabled={inbox.isFetchingNextPage || undefined} onClick={() => !inbox.isFetchingNextPage && void inbox.fetchNextPage()}>
            Load more
          </button>
          {inbox.isFetchingNextPage && <span role="status">Loading more…</span>}
        </p>
      )}
    </>
  );
}

export default function NotificationsPage() {
  return (
    <Page title="Notifications">
      <SignedIn what="your notifications">
        <Inbox />
      </SignedIn>
    </Page>
  );
}
