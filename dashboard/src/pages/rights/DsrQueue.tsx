// The DSR queue: filters in the URL, earliest deadline first (as the API sorts), paged by cursor.
import { api, ok, type Schemas } from "../../api/client.js";
import { Link, useLocation } from "../../router.js";
import { useStaff } from "../../session/SessionProvider.js";
import { DataTable, DateTime, EmptyState, ErrorNotice, Loading, Page, useApi } from "../../ui/index.js";
import { DSR_STATUS_LABELS, DSR_TYPE_LABELS } from "./labels.js";
import { pick, Pager, QueueFilters, SLA_FILTER, slaQuery, type FilterDef } from "./QueueControls.js";
import { QueueTabs } from "./QueueTabs.js";
import { SettingsPanel } from "./SettingsPanel.js";
import { Sla } from "./Sla.js";
import { DSR_STATUSES, DSR_TYPES } from "./state-machine.js";

type DsrRequest = Schemas["DsrRequest"];

const FILTERS: readonly FilterDef[] = [
  { name: "status", label: "Status", options: DSR_STATUSES.map((s) => [s, DSR_STATUS_LABELS[s]] as const) },
  { name: "type", label: "Type", options: DSR_TYPES.map((t) => [t, DSR_TYPE_LABELS[t]] as const) },
  SLA_FILTER,
];

export function DsrQueue() {
  const { organizationId } = useStaff();
  const { query, full } = useLocation();
  const cursor = query.get("cursor") ?? undefined;
  const list = useApi(
    () =>
      ok(
        api.GET("/api/v1/staff/dsr", {
          params: {
            query: {
              organizationId,
              status: pick(query, "status", DSR_STATUSES),
              type: pick(query, "type", DSR_TYPES),
              ...slaQuery(query),
              cursor,
            },
          },
        }),
      ),
    [organizationId, full],
  );
  const filtered = FILTERS.some((filter) => query.get(filter.name));

  return (
    <Page
      title="Data subject requests"
      intro="Requests for a summary, the processors, correction or erasure, earliest deadline first."
    >
      <QueueTabs current="dsr" />
      <SettingsPanel />
      <QueueFilters filters={FILTERS} query={query} />
      <ErrorNotice error={list.error} onRetry={list.reload} />
      {list.loading ? <Loading label="Loading requests…" /> : null}
      {list.data && !list.loading ? (
        <>
          <DataTable
            caption="Data subject requests"
            captionHidden
            columns={[
              {
                key: "request",
                header: "Request",
                rowHeader: true,
                render: (r: DsrRequest) => (
                  <Link to={`/rights/dsr/${encodeURIComponent(r.requestId)}`}>
                    {DSR_TYPE_LABELS[r.type]} <span className="rights-id">{r.requestId}</span>
                  </Link>
                ),
              },
              { key: "principal", header: "Principal", render: (r) => r.externalId ?? "—" },
              { key: "status", header: "Status", render: (r) => DSR_STATUS_LABELS[r.status] },
              { key: "filed", header: "Filed", render: (r) => <DateTime value={r.createdAt} /> },
              { key: "due", header: "Deadline", render: (r) => <Sla dueAt={r.dueAt} state={r.dueState} /> },
            ]}
            rows={list.data.requests}
            rowKey={(r) => r.requestId}
            empty={
              <EmptyState
                title={filtered ? "No requests match these filters" : "No data subject requests yet"}
              >
                {filtered
                  ? "Change or clear the filters to see other requests."
                  : "Requests principals file through the API or the banner appear here."}
              </EmptyState>
            }
          />
          <Pager nextCursor={list.data.nextCursor} onFirstPage={cursor === undefined} />
        </>
      ) : null}
    </Page>
  );
}
