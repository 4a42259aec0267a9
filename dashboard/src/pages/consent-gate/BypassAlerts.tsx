// Bypass alerts: consents denied at least `denyThreshold` times inside the rolling `windowMs` (a
// service that keeps asking about a withdrawn consent may be about to ignore the answer). The
// window and threshold in force are echoed by the API on every answer and said here in words.
import { api, ok, type Schemas } from "../../api/client.js";
import {
  DataTable,
  DateTime,
  EmptyState,
  ErrorNotice,
  Loading,
  useApi,
  type Column,
} from "../../ui/index.js";
import { describeDuration } from "../../ui/DurationInput.js";

type Alert = Schemas["ConsentGateBypassAlert"];

const COLUMNS: Column<Alert>[] = [
  { key: "consent", header: "Consent", rowHeader: true, render: (a) => <code>{a.consentId}</code> },
  { key: "count", header: "Denies in window", align: "end", render: (a) => a.denyCount },
  { key: "first", header: "First denied", render: (a) => <DateTime value={a.firstDeniedAt} /> },
  { key: "last", header: "Last denied", render: (a) => <DateTime value={a.lastDeniedAt} /> },
];

export function BypassAlerts({ settingsVersion }: { settingsVersion: number }) {
  const alerts = useApi(
    () => ok(api.GET("/api/v1/consent/gate/alerts", { params: { query: {} } })),
    [settingsVersion],
  );
  return (
    <section className="gate-section" aria-labelledby="alerts-heading">
      <h2 id="alerts-heading">Bypass alerts</h2>
      {alerts.loading && !alerts.data ? <Loading label="Loading alerts…" /> : null}
      <ErrorNotice error={alerts.error} onRetry={alerts.reload} />
      {alerts.data ? (
        <>
          <p className="gate-rule">
            An alert is a consent denied <strong>{alerts.data.denyThreshold}</strong>{" "}
            {alerts.data.denyThreshold === 1 ? "time" : "times"} or more within{" "}
            <strong>{describeDuration(alerts.data.windowMs)}</strong>.
          </p>
          <DataTable
            caption="Bypass alerts, most recently denied first"
            captionHidden
            columns={COLUMNS}
            rows={alerts.data.alerts}
            rowKey={(a) => a.consentId}
            empty={
              <EmptyState title="No bypass alerts">
                No consent was denied that often in the window (or bypass alerts are switched off in
                Organisation → Capabilities).
              </EmptyState>
            }
          />
          <button type="button" className="button" onClick={alerts.reload} disabled={alerts.loading}>
            Refresh alerts
          </button>
        </>
      ) : null}
    </section>
  );
}
