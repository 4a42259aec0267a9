// The grievance queue: filters in the URL, earliest deadline first (as the API sorts), paged by cursor.
import { api, ok, type Schemas } from "../../api/client.js";
import { Link, useLocation } from "../../router.js";
import { useStaff } from "../../session/SessionProvider.js";
import { DataTable, DateTime, EmptyState, ErrorNotice, Loading, Page, useApi } from "../../ui/index.js";
import { GRIEVANCE_STATUS_LABELS } from "./labels.js";
import { pick, Pager, QueueFilters, SLA_FILTER, slaQuery, type FilterDef } from "./QueueControls.js";
import { QueueTabs } from "./QueueTabs.js";
import { SettingsPanel } from "./SettingsPanel.js";
import { Sla } from "./Sla.js";
import { GRIEVANCE_STATUSES } from "./state-machine.js";

type Grievance = Schemas["Grievance"];

const FILTERS: readonly FilterDef[] = [
  {
    name: "status",
    label: "Status",
    options: GRIEVANCE_STATUSES.map((s) => [s, GRIEVANCE_STATUS_LABELS[s]] as const),
  },
  SLA_FILTER,
];

export function GrievanceQueue() {
  const { organizationId } = useStaff();
  const { query, full } = useLocation();
  const cursor = query.get("cursor") ?? undefined;
  const list = useApi(
    () =>
      ok(
        api.GET("/api/v1/staff/grievances", {
          params: {
            query: {
              organizationId,
              status: pick(query, "status", GRIEVANCE_STATUSES),
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
    <Page title="Grievances" intro="Complaints principals filed, earliest deadline first.">
      <QueueTabs current="grievances" />
      <SettingsPanel />
      <QueueFilters filters={FILTERS} query={query} />
      <ErrorNotice error={list.error} onRetry={list.reload} />
      {list.loading ? <Loading label="Loading grievances…" /> : null}
      {list.data && !list.loading ? (
        <>
          <DataTable
            caption="Grievances"
            captionHidden
            columns={[
              {
                key: "subject",
                header: "Subject",
                rowHeader: true,
                render: (g: Grievance) => (
                  <Link to={`/rights/grievances/${encodeURIComponent(g.grievanceId)}`}>{g.subject}</Link>
                ),
              },
              { key: "principal", header: "Principal", render: (g) => g.externalId ?? "—" },
              { key: "status", header: "Status", render: (g) => GRIEVANCE_STATUS_LABELS[g.status] },
              { key: "filed", header: "Filed", render: (g) => <DateTime value={g.createdAt} /> },
              { key: "due", header: "Deadline", render: (g) => <Sla dueAt={g.dueAt} state={g.dueState} /> },
            ]}
            rows={list.data.grievances}
            rowKey={(g) => g.grievanceId}
            empty={
              <EmptyState title={filtered ? "No grievances match these filters" : "No grievances yet"}>
                {filtered
                  ? "Change or clear the filters to see other grievances."
                  : "Grievances principals file through the API appear here."}
              </EmptyState>
            }
          />
          <Pager nextCursor={list.data.nextCursor} onFirstPage={cursor === undefined} />
        </>
      ) : null}
    </Page>
  );
}
