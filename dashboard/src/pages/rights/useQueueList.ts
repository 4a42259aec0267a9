// Loads one page of a rights queue from the URL: the organisation, the SLA filter and the cursor are
// common to both queues (`common`); `load` adds the queue's own filters from `query` and calls its
// route. The list is read again whenever the URL changes (a filter, a page).
import { useLocation } from "../../router.js";
import { useStaff } from "../../session/SessionProvider.js";
import { useApi, type ApiState } from "../../ui/index.js";
import { slaQuery, type FilterDef } from "./QueueControls.js";

export interface QueueCommonQuery {
  organizationId: string;
  overdue?: boolean;
  dueSoon?: boolean;
  cursor?: string;
}

export interface QueueList<T> {
  query: URLSearchParams;
  list: ApiState<T>;
  /** Whether a filter is set, so an empty list can say the filters hide items rather than none exist. */
  filtered: boolean;
  onFirstPage: boolean;
}

export function useQueueList<T>(
  filters: readonly FilterDef[],
  load: (common: QueueCommonQuery, query: URLSearchParams) => Promise<T>,
): QueueList<T> {
  const { organizationId } = useStaff();
  const { query, full } = useLocation();
  const cursor = query.get("cursor") ?? undefined;
  const list = useApi(
    () => load({ organizationId, ...slaQuery(query), cursor }, query),
    [organizationId, full],
  );
  const filtered = filters.some((filter) => query.get(filter.name));
  return { query, list, filtered, onFirstPage: cursor === undefined };
}
