// The filters and paging of a rights queue, kept in the URL query (shareable, and Back returns to
// the previous page of the list). A filter change starts again from the first page.
import { setQuery } from "../../router.js";

export interface FilterDef {
  name: string;
  label: string;
  options: readonly (readonly [value: string, label: string])[];
}

/** The query value of `name` if it is one of `allowed`, else undefined (a hand-edited URL is ignored). */
export function pick<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = query.get(name);
  return allowed.find((candidate) => candidate === value);
}

export function QueueFilters({ filters, query }: { filters: readonly FilterDef[]; query: URLSearchParams }) {
  return (
    <form className="queue-filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
      {filters.map((filter) => {
        const id = `filter-${filter.name}`;
        return (
          <div className="field" key={filter.name}>
            <label htmlFor={id}>{filter.label}</label>
            <select
              id={id}
              name={filter.name}
              value={query.get(filter.name) ?? ""}
              onChange={(event) => setQuery({ [filter.name]: event.target.value, cursor: undefined })}
            >
              <option value="">Any</option>
              {filter.options.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
        );
      })}
      {filters.some((filter) => query.get(filter.name)) ? (
        <button
          type="button"
          className="button"
          onClick={() =>
            setQuery({
              ...Object.fromEntries(filters.map((filter) => [filter.name, undefined])),
              cursor: undefined,
            })
          }
        >
          Clear filters
        </button>
      ) : null}
    </form>
  );
}

/** The SLA filter: the contract's `overdue` and `dueSoon` flags as one choice. */
export const SLA_FILTER: FilterDef = {
  name: "sla",
  label: "Deadline",
  options: [
    ["overdue", "Overdue"],
    ["dueSoon", "Due soon"],
  ],
};

export function slaQuery(query: URLSearchParams): { overdue?: boolean; dueSoon?: boolean } {
  const sla = pick(query, "sla", ["overdue", "dueSoon"] as const);
  return sla === "overdue" ? { overdue: true } : sla === "dueSoon" ? { dueSoon: true } : {};
}

/** Cursor paging (contract "Paging"): the next page's cursor goes in the URL; Back returns. */
export function Pager({ nextCursor, onFirstPage }: { nextCursor: string | null; onFirstPage: boolean }) {
  if (!nextCursor && onFirstPage) return null;
  return (
    <nav className="pager" aria-label="Pages">
      {onFirstPage ? null : (
        <button type="button" className="button" onClick={() => setQuery({ cursor: undefined })}>
          First page
        </button>
      )}
      {nextCursor ? (
        <button
          type="button"
          className="button"
          onClick={() => setQuery({ cursor: nextCursor }, { replace: false })}
        >
          Next page
        </button>
      ) : (
        <span className="pager-end">Last page</span>
      )}
    </nav>
  );
}
