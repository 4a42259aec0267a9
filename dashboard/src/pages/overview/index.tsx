// Overview, the landing page after sign-in: consents given and withdrawn per day by purpose (a
// chart with a table alternative), the DSR and grievance queues against their statutory clocks,
// Consent Gate decisions, and the audit chain check. One read (`staffGetOverview`) for the first
// three; days are counted in the browser's time zone. The range lives in the URL (?days=7) so a
// reload or a shared link shows the same view.
import { api, ok, type Schemas } from "../../api/client.js";
import { Link, setQuery, useLocation } from "../../router.js";
import { EmptyState, ErrorNotice, formatDate, Loading, Page, useApi } from "../../ui/index.js";
import { AuditVerify } from "./AuditVerify.js";
import { ConsentChart } from "./ConsentChart.js";
import { browserUtcOffsetMinutes, consentSeries } from "./series.js";
import "./overview.css";

const RANGES = [7, 30, 90] as const;
const DEFAULT_RANGE = 30;

type Overview = Schemas["StaffOverview"];
type QueueHealth = Schemas["RightsQueueHealth"];

export default function OverviewPage() {
  const { query } = useLocation();
  const asked = Number(query.get("days"));
  const days = (RANGES as readonly number[]).includes(asked) ? asked : DEFAULT_RANGE;
  const utcOffsetMinutes = browserUtcOffsetMinutes();
  const overview = useApi(
    () => ok(api.GET("/api/v1/staff/overview", { params: { query: { days, utcOffsetMinutes } } })),
    [days, utcOffsetMinutes],
  );

  return (
    <Page
      title="Overview"
      intro="Your organisation's consents, rights requests and Consent Gate at a glance."
    >
      <fieldset className="overview-range">
        <legend>Range</legend>
        {RANGES.map((range) => (
          <label
            key={range}
            className={range === days ? "overview-range-option is-selected" : "overview-range-option"}
          >
            <input
              type="radio"
              name="overview-days"
              value={range}
              checked={range === days}
              onChange={() => setQuery({ days: range === DEFAULT_RANGE ? undefined : range })}
            />
            Last {range} days
          </label>
        ))}
      </fieldset>
      {overview.error ? (
        <ErrorNotice
          error={overview.error}
          title="The overview could not be loaded"
          onRetry={overview.reload}
        />
      ) : null}
      {overview.data ? (
        <div
          className={overview.loading ? "overview-body is-refreshing" : "overview-body"}
          aria-busy={overview.loading}
        >
          <OverviewBody overview={overview.data} />
        </div>
      ) : overview.loading ? (
        <Loading label="Loading the overview…" />
      ) : null}
      <AuditVerify />
    </Page>
  );
}

function OverviewBody({ overview }: { overview: Overview }) {
  const series = consentSeries(overview);
  const today = series.days[series.days.length - 1];
  const range = `${overview.days} days`;
  return (
    <>
      <section className="overview-card" aria-labelledby="consents-heading" data-testid="overview-consents">
        <h2 id="consents-heading">Consents given and withdrawn</h2>
        <dl className="overview-stats">
          <Stat label="Given today" value={today?.totalGiven ?? 0} />
          <Stat label="Withdrawn today" value={today?.totalWithdrawn ?? 0} />
          <Stat label={`Given in ${range}`} value={series.totalGiven} />
          <Stat label={`Withdrawn in ${range}`} value={series.totalWithdrawn} />
        </dl>
        {series.purposes.length === 0 ? (
          <EmptyState title={`No consents given or withdrawn in the last ${range}`}>
            Consents appear here as soon as your banner or apps record them.
          </EmptyState>
        ) : (
          <ConsentChart
            series={series}
            caption={`Consents given and withdrawn per day by purpose, last ${range}`}
          />
        )}
        <p className="overview-muted">
          Days are counted in your time zone (UTC{formatOffset(overview.utcOffsetMinutes)}), from{" "}
          {formatDate(overview.from)} to {formatDate(overview.to)}.
        </p>
      </section>
      <div className="overview-grid">
        <QueueCard
          id="dsr"
          title="Data subject requests"
          noun="DSRs"
          to="/rights/dsr"
          health={overview.rights.dsr}
          range={range}
        />
        <QueueCard
          id="grievances"
          title="Grievances"
          noun="Grievances"
          to="/rights/grievances"
          health={overview.rights.grievances}
          range={range}
        />
        <section className="overview-card" aria-labelledby="gate-heading" data-testid="overview-gate">
          <h2 id="gate-heading">Consent Gate</h2>
          <dl className="overview-stats">
            <Stat label="Allowed" value={overview.gate.allow} />
            <Stat
              label="Denied"
              value={overview.gate.deny}
              tone={overview.gate.deny > 0 ? "warning" : undefined}
            />
          </dl>
          <p className="overview-muted">
            {overview.gate.allow + overview.gate.deny === 0
              ? `No decisions recorded in the last ${range} (recording may be off).`
              : `${denyShare(overview.gate)} of ${overview.gate.allow + overview.gate.deny} decisions in the last ${range} were denials.`}{" "}
            <Link to="/consent-gate">Consent Gate</Link>
          </p>
        </section>
      </div>
    </>
  );
}

function Stat({
  label,
  value,
  tone,
}: {
  label: string;
  value: number;
  tone?: "warning" | "danger" | undefined;
}) {
  return (
    <div className={tone ? `overview-stat overview-stat-${tone}` : "overview-stat"}>
      <dt>{label}</dt>
      <dd>{value.toLocaleString()}</dd>
    </div>
  );
}

/** SLA health of one rights queue, each figure a link to the queue. */
function QueueCard({
  id,
  title,
  noun,
  to,
  health,
  range,
}: {
  id: string;
  title: string;
  noun: string;
  to: string;
  health: QueueHealth;
  range: string;
}) {
  // The queue pages filter by deadline in their URL (?sla=overdue|dueSoon), so those tiles open the
  // matching list; "open" and "closed in period" have no single filter there, so they open the queue.
  const tiles: { label: string; value: number; filter?: string; tone?: "warning" | "danger" }[] = [
    { label: "Open", value: health.open },
    {
      label: "Due soon",
      value: health.dueSoon,
      filter: "sla=dueSoon",
      ...(health.dueSoon > 0 ? { tone: "warning" as const } : {}),
    },
    {
      label: "Overdue",
      value: health.overdue,
      filter: "sla=overdue",
      ...(health.overdue > 0 ? { tone: "danger" as const } : {}),
    },
    { label: `Closed in ${range}`, value: health.closedInPeriod },
  ];
  return (
    <section className="overview-card" aria-labelledby={`${id}-heading`} data-testid={`overview-${id}`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      <ul className="overview-tiles">
        {tiles.map((tile) => (
          <li key={tile.label}>
            {/* Read as "DSRs Overdue: 3"; shown as the number over its label (column-reverse). */}
            <Link
              to={tile.filter ? `${to}?${tile.filter}` : to}
              className={tile.tone ? `overview-tile overview-stat-${tile.tone}` : "overview-tile"}
            >
              <span className="overview-tile-label">
                <span className="visually-hidden">{noun} </span>
                {tile.label}
                {tile.tone === "danger" ? <span aria-hidden="true"> ⚠</span> : null}
                <span className="visually-hidden">:</span>
              </span>
              <span className="overview-tile-value">{tile.value.toLocaleString()}</span>
            </Link>
          </li>
        ))}
      </ul>
      <p className="overview-muted">
        Open excludes those due within 24 hours or overdue. <Link to={to}>Open the {noun} queue</Link>
      </p>
    </section>
  );
}

function denyShare(gate: { allow: number; deny: number }): string {
  const total = gate.allow + gate.deny;
  return `${Math.round((gate.deny / total) * 100)}%`;
}

/** "+5:30", "-4", "+0" */
function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const h = Math.floor(abs / 60);
  const m = abs % 60;
  return `${sign}${h}${m ? `:${String(m).padStart(2, "0")}` : ""}`;
}
