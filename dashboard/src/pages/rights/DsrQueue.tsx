// The DSR queue: filters in the URL, earliest deadline first (as the API sorts), paged by cursor.
import { api, ok, type Schemas } from "../../api/client.js";
import { Link } from "../../router.js";
import { Page, type Column } from "../../ui/index.js";
import { DSR_STATUS_LABELS, DSR_TYPE_LABELS } from "./labels.js";
import { pick, QueueFilters, SLA_FILTER, type FilterDef } from "./QueueControls.js";
import { QueueTable } from "./QueueTable.js";
import { QueueTabs } from "./QueueTabs.js";
import { SettingsPanel } from "./SettingsPanel.js";
import { DSR_STATUSES, DSR_TYPES } from "./state-machine.js";
import { useQueueList } from "./useQueueList.js";

type DsrRequest = Schemas["DsrRequest"];

const FILTERS: readonly FilterDef[] = [
  { name: "status", label: "Status", options: DSR_STATUSES.map((s) => [s, DSR_STATUS_LABELS[s]] as const) },
  { name: "type", label: "Type", options: DSR_TYPES.map((t) => [t, DSR_TYPE_LABELS[t]] as const) },
  SLA_FILTER,
];

/** The row header: the request's type and id, linking to its page. */
const REQUEST_COLUMN: Column<DsrRequest> = {
  key: "request",
  header: "Request",
  rowHeader: true,
  render: (r) => (
    <Link to={`/rights/dsr/${encodeURIComponent(r.requestId)}`}>
      {DSR_TYPE_LABELS[r.type]} <span className="rights-id">{r.requestId}</span>
    </Link>
  ),
};

export function DsrQueue() {
  const queue = useQueueList(FILTERS, (common, query) =>
    ok(
      api.GET("/api/v1/staff/dsr", {
        params: {
          query: {
            ...common,
            status: pick(query, "status", DSR_STATUSES),
            type: pick(query, "type", DSR_TYPES),
          },
        },
      }),
    ),
  );

  return (
    <Page
      title="Data subject requests"
      intro="Requests for a summary, the processors, correction or erasure, earliest deadline first."
    >
      <QueueTabs current="dsr" />
      <SettingsPanel />
      <QueueFilters filters={FILTERS} query={queue.query} />
      <QueueTable
        queue={queue}
        rows={(data) => data.requests}
        noun="requests"
        caption="Data subject requests"
        first={REQUEST_COLUMN}
        statusLabels={DSR_STATUS_LABELS}
        rowKey={(r) => r.requestId}
        none={{
          title: "No data subject requests yet",
          text: "Requests principals file through the API or the banner appear here.",
        }}
      />
    </Page>
  );
}
