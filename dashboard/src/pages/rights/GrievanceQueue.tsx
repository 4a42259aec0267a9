// The grievance queue: filters in the URL, earliest deadline first (as the API sorts), paged by cursor.
import { api, ok, type Schemas } from "../../api/client.js";
import { Link } from "../../router.js";
import { Page, type Column } from "../../ui/index.js";
import { GRIEVANCE_STATUS_LABELS } from "./labels.js";
import { pick, QueueFilters, SLA_FILTER, type FilterDef } from "./QueueControls.js";
import { QueueTable } from "./QueueTable.js";
import { QueueTabs } from "./QueueTabs.js";
import { SettingsPanel } from "./SettingsPanel.js";
import { GRIEVANCE_STATUSES } from "./state-machine.js";
import { useQueueList } from "./useQueueList.js";

type Grievance = Schemas["Grievance"];

const FILTERS: readonly FilterDef[] = [
  {
    name: "status",
    label: "Status",
    options: GRIEVANCE_STATUSES.map((s) => [s, GRIEVANCE_STATUS_LABELS[s]] as const),
  },
  SLA_FILTER,
];

/** The row header: the grievance's subject, linking to its page. */
const SUBJECT_COLUMN: Column<Grievance> = {
  key: "subject",
  header: "Subject",
  rowHeader: true,
  render: (g) => <Link to={`/rights/grievances/${encodeURIComponent(g.grievanceId)}`}>{g.subject}</Link>,
};

export function GrievanceQueue() {
  const queue = useQueueList(FILTERS, (common, query) =>
    ok(
      api.GET("/api/v1/staff/grievances", {
        params: { query: { ...common, status: pick(query, "status", GRIEVANCE_STATUSES) } },
      }),
    ),
  );

  return (
    <Page title="Grievances" intro="Complaints principals filed, earliest deadline first.">
      <QueueTabs current="grievances" />
      <SettingsPanel />
      <QueueFilters filters={FILTERS} query={queue.query} />
      <QueueTable
        queue={queue}
        rows={(data) => data.grievances}
        noun="grievances"
        caption="Grievances"
        first={SUBJECT_COLUMN}
        statusLabels={GRIEVANCE_STATUS_LABELS}
        rowKey={(g) => g.grievanceId}
        none={{ title: "No grievances yet", text: "Grievances principals file through the API appear here." }}
      />
    </Page>
  );
}
