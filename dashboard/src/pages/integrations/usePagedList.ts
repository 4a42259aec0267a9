import { useEffect, useState, type DependencyList } from "react";
import { useApi } from "../../ui/index.js";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PagedList<T> {
  items: T[];
  /** The first page has arrived at least once (so an empty `items` means "none"). */
  loaded: boolean;
  loading: boolean;
  error: unknown;
  /** Loads the first page again (after a write); pages loaded with "Load more" are dropped. */
  reload: () => void;
  hasMore: boolean;
  loadMore: () => void;
  loadingMore: boolean;
  moreError: unknown;
}

/**
 * A cursor-paged list (contract "Paging"): the first page through useApi, then "Load more" appends
 * the page after `nextCursor`. A reload starts again from the first page, so a list never mixes
 * pages read before and after a write.
 */
export function usePagedList<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  deps: DependencyList,
): PagedList<T> {
  const first = useApi(() => fetchPage(undefined), deps);
  const [more, setMore] = useState<Page<T> | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<unknown>(undefined);

  useEffect(() => {
    setMore(null);
    setMoreError(undefined);
  }, [first.data]);

  const nextCursor = more ? more.nextCursor : (first.data?.nextCursor ?? null);
  const loadMore = () => {
    if (!nextCursor || loadingMore) return;
    setLoadingMore(true);
    setMoreError(undefined);
    fetchPage(nextCursor).then(
      (page) => {
        setMore((previous) => ({
          items: [...(previous?.items ?? []), ...page.items],
          nextCursor: page.nextCursor,
        }));
        setLoadingMore(false);
      },
      (error: unknown) => {
        setMoreError(error);
        setLoadingMore(false);
      },
    );
  };

  return {
    items: [...(first.data?.items ?? []), ...(more?.items ?? [])],
    loaded: first.data !== undefined,
    loading: first.loading,
    error: first.error,
    reload: first.reload,
    hasMore: nextCursor !== null,
    loadMore,
    loadingMore,
    moreError,
  };
}
