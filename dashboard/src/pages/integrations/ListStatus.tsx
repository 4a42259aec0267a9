// The parts every paged list shares (this page's and the Offline capture page's): the "Show" filter
// above it, the loading / error state of its first page and the "Load more" button (with its own
// error) for the pages after it.
import type { ReactNode } from "react";
import { ErrorNotice, Loading } from "../../ui/index.js";
import type { PagedList } from "./usePagedList.js";

/** Loading or error before the first page; otherwise `children` (the table), then "Load more". */
export function PagedBody<T>({
  list,
  what,
  children,
}: {
  list: PagedList<T>;
  /** Plural noun for messages: "API keys". */
  what: string;
  children: ReactNode;
}) {
  if (!list.loaded) {
    if (list.error)
      return <ErrorNotice error={list.error} title={`Could not load ${what}`} onRetry={list.reload} />;
    return <Loading label={`Loading ${what}…`} />;
  }
  return (
    <>
      <ErrorNotice error={list.error} title={`Could not refresh ${what}`} onRetry={list.reload} />
      {children}
      {list.hasMore ? (
        <p className="integrations-more">
          <button
            type="button"
            className="button"
            onClick={list.loadMore}
            disabled={list.loadingMore}
            aria-busy={list.loadingMore}
          >
            {list.loadingMore ? "Loading…" : `Load more ${what}`}
          </button>
        </p>
      ) : null}
      <ErrorNotice error={list.moreError} title={`Could not load more ${what}`} onRetry={list.loadMore} />
    </>
  );
}

/** "Show [which rows]": the list filter above a section's table. */
export function ShowFilter<T extends string>({
  value,
  onChange,
  options,
  label,
}: {
  value: T;
  onChange: (value: T) => void;
  options: readonly { value: T; label: string }[];
  /** The select's accessible name: which rows it chooses. */
  label: string;
}) {
  return (
    <label className="integrations-inline">
      Show{" "}
      <select value={value} onChange={(e) => onChange(e.target.value as T)} aria-label={label}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
