// "Load more" under a paged list: the next page of a TanStack infinite query, and what went wrong (with the
// same button to try again) when it failed. The button stays enabled while a page loads (a disabled button
// would drop the keyboard focus); a second press meanwhile does nothing.
import { errorText } from '../errors.ts';

type Paged = { hasNextPage: boolean; isFetchingNextPage: boolean; isFetchNextPageError: boolean; error: unknown; fetchNextPage: () => unknown };

export function LoadMore({ query }: { query: Paged }) {
  if (!query.hasNextPage) return null;
  return (
    <div className="load-more">
      {query.isFetchNextPageError && (
        <p className="error" role="alert">
          {errorText(query.error)}
        </p>
      )}
      <button type="button" className="secondary" aria-busy={query.isFetchingNextPage} onClick={() => void (query.isFetchingNextPage || query.fetchNextPage())}>
        Load more
      </button>
      {query.isFetchingNextPage && (
        <span className="muted" role="status">
          Loading…
        </span>
      )}
    </div>
  );
}
