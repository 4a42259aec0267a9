// The breach register (issue 27; DPDP Rules 2025 r.7): every breach and drill with its two clocks,
// the principals' ("without delay", the window chosen when recorded) and the Board's 72 hours, due
// soon and overdue said in words; recording a breach or a drill. Viewers read only.
import { useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import {
  BREACH_STATUS_LABELS,
  fromLocalInput,
  splitLines,
  splitList,
  toLocalInput,
} from "../../lib/registers.js";
import { Link } from "../../router.js";
import {
  DataTable,
  DateTime,
  ErrorNotice,
  Field,
  Notice,
  Page,
  unclaimedError,
  useIdempotencyKey,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { PagedBody } from "../integrations/ListStatus.js";
import { usePagedList } from "../integrations/usePagedList.js";
import { DUE_STATE_LABELS } from "../rights/labels.js";
import { Sla } from "../rights/Sla.js";
import "../rights/rights.css";
import "./registers.css";

type Breach = Schemas["StaffBreach"];
type BreachStatus = Breach["status"];

const STATUSES = Object.keys(BREACH_STATUS_LABELS) as BreachStatus[];
const DUE_STATES = ["on_time", "due_soon", "overdue", "met", "missed"] as const;

export function BreachClock({ dueAt, state }: { dueAt: number; state: Schemas["DueState"] }) {
  const warn = state === "due_soon" || state === "overdue" || state === "missed";
  return (
    <span className={warn ? "registers-state registers-state-warn" : "registers-state"}>
      {state === "met" || state === "missed" ? DUE_STATE_LABELS[state] : <Sla dueAt={dueAt} state={state} />}
    </span>
  );
}

export default function BreachesPage() {
  const [status, setStatus] = useState<"" | BreachStatus>("");
  const [due, setDue] = useState<"" | (typeof DUE_STATES)[number]>("");
  const [drill, setDrill] = useState<"" | "true" | "false">("");
  const [done, setDone] = useState<string | null>(null);
  const [recording, setRecording] = useState(false);
  const list = usePagedList(
    async (cursor) => {
      const data = await ok(
        api.GET("/api/v1/staff/breaches", {
          params: {
            query: {
              cursor,
              ...(status ? { status } : {}),
              ...(due ? { dueState: due } : {}),
              ...(drill ? { drill: drill === "true" } : {}),
            },
          },
        }),
      );
      return { items: data.breaches, nextCursor: data.nextCursor };
    },
    [status, due, drill],
  );

  const columns: Column<Breach>[] = [
    {
      key: "breach",
      header: "Breach",
      rowHeader: true,
      render: (b) => (
        <Link to={`/breaches/${encodeURIComponent(b.breachId)}`}>
          {b.drill ? "Drill: " : ""}
          {b.description.length > 80 ? `${b.description.slice(0, 80)}…` : b.description}
        </Link>
      ),
    },
    { key: "discovered", header: "Discovered", render: (b) => <DateTime value={b.discoveredAt} /> },
    { key: "status", header: "Status", render: (b) => BREACH_STATUS_LABELS[b.status] },
    {
      key: "principals",
      header: "Principals told",
      render: (b) => (
        <>
          <div>
            <BreachClock dueAt={b.principalNotificationDueAt} state={b.principalNotificationDueState} />
          </div>
          {b.affectedPrincipals.notified} of {b.affectedPrincipals.total} told
        </>
      ),
    },
    {
      key: "board",
      header: "Board (72 h)",
      render: (b) => <BreachClock dueAt={b.boardReportDueAt} state={b.boardReportDueState} />,
    },
  ];

  return (
    <Page
      title="Breaches"
      intro="The personal data breach register. Affected principals are to be told without delay, and the detailed report is due to the Data Protection Board 72 hours after discovery (DPDP Rules 2025 r.7). Drills rehearse the process and tell nobody."
    >
      {done ? <Notice tone="success">{done}</Notice> : null}
      <WriteGuard>
        {recording ? (
          <section className="registers-section" aria-labelledby="record-breach">
            <h2 id="record-breach">Record a breach</h2>
            <RecordBreachForm
              onCancel={() => setRecording(false)}
              onRecorded={(b) => {
                setDone(`${b.drill ? "The drill" : "The breach"} is recorded as ${b.breachId}.`);
                setRecording(false);
                list.reload();
              }}
            />
          </section>
        ) : (
          <p>
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                setDone(null);
                setRecording(true);
              }}
            >
              Record a breach
            </button>
          </p>
        )}
      </WriteGuard>
      <form className="registers-filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="breach-status">Status</label>
          <select
            id="breach-status"
            value={status}
            onChange={(e) => setStatus(e.target.value as "" | BreachStatus)}
          >
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {BREACH_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="breach-due">Clocks</label>
          <select
            id="breach-due"
            value={due}
            onChange={(e) => setDue(e.target.value as "" | (typeof DUE_STATES)[number])}
          >
            <option value="">Any</option>
            {DUE_STATES.map((s) => (
              <option key={s} value={s}>
                {DUE_STATE_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="breach-drill">Kind</label>
          <select
            id="breach-drill"
            value={drill}
            onChange={(e) => setDrill(e.target.value as "" | "true" | "false")}
          >
            <option value="">Breaches and drills</option>
            <option value="false">Breaches only</option>
            <option value="true">Drills only</option>
          </select>
        </div>
      </form>
      <PagedBody list={list} what="breaches">
        <DataTable
          caption="Breaches"
          columns={columns}
          rows={list.items}
          rowKey={(b) => b.breachId}
          empty={<p className="registers-intro">No breaches recorded.</p>}
        />
      </PagedBody>
    </Page>
  );
}

const RECORD_FIELDS = [
  "description",
  "discoveredAt",
  "occurredAt",
  "affectedPurposes",
  "affectedDataCategories",
  "mitigation",
  "principalNotificationWindowHours",
] as const;

function RecordBreachForm({
  onRecorded,
  onCancel,
}: {
  onRecorded: (breach: Breach) => void;
  onCancel: () => void;
}) {
  const [description, setDescription] = useState("");
  const [discoveredAt, setDiscoveredAt] = useState(() => toLocalInput(Date.now()));
  const [occurredAt, setOccurredAt] = useState("");
  const [purposes, setPurposes] = useState("");
  const [categories, setCategories] = useState("");
  const [mitigation, setMitigation] = useState("");
  const [drill, setDrill] = useState(false);
  const [windowHours, setWindowHours] = useState("24");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const idempotency = useIdempotencyKey();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const affectedPurposes = splitLines(purposes);
    const affectedDataCategories = splitList(categories);
    const occurred = fromLocalInput(occurredAt);
    const hours = Number(windowHours);
    try {
      const breach = await ok(
        api.POST("/api/v1/staff/breaches", {
          body: {
            description: description.trim(),
            // An unreadable date goes as 0, which the server refuses naming the field.
            discoveredAt: fromLocalInput(discoveredAt) ?? 0,
            ...(occurred !== undefined ? { occurredAt: occurred } : {}),
            ...(affectedPurposes.length > 0 ? { affectedPurposes } : {}),
            ...(affectedDataCategories.length > 0 ? { affectedDataCategories } : {}),
            ...(mitigation.trim() ? { mitigation: mitigation.trim() } : {}),
            drill,
            ...(windowHours.trim() ? { principalNotificationWindowHours: hours } : {}),
          },
          headers: { "Idempotency-Key": idempotency.key },
        }),
      );
      idempotency.renew();
      onRecorded(breach);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="registers-form" onSubmit={(e) => void submit(e)} aria-label="Record a breach">
      <Field
        label="What happened"
        name="description"
        error={error}
        hint="Nature, extent, timing and location. Affected principals are told this text."
      >
        <textarea
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          rows={3}
          maxLength={5000}
        />
      </Field>
      <Field label="Discovered at" name="discoveredAt" error={error} hint="The clocks run from this moment.">
        <input type="datetime-local" value={discoveredAt} onChange={(e) => setDiscoveredAt(e.target.value)} />
      </Field>
      <Field label="Occurred at (if known)" name="occurredAt" error={error}>
        <input type="datetime-local" value={occurredAt} onChange={(e) => setOccurredAt(e.target.value)} />
      </Field>
      <Field label="Affected purposes (optional)" name="affectedPurposes" error={error} hint="One per line.">
        <textarea value={purposes} onChange={(e) => setPurposes(e.target.value)} rows={2} />
      </Field>
      <Field
        label="Affected data categories (optional)"
        name="affectedDataCategories"
        error={error}
        hint="Separated by commas."
      >
        <input value={categories} onChange={(e) => setCategories(e.target.value)} />
      </Field>
      <Field
        label="Mitigation (optional now, needed before principals are told)"
        name="mitigation"
        error={error}
      >
        <textarea
          value={mitigation}
          onChange={(e) => setMitigation(e.target.value)}
          rows={2}
          maxLength={5000}
        />
      </Field>
      <Field
        label="Tell principals within (hours)"
        name="principalNotificationWindowHours"
        error={error}
        hint="“Without delay”: 24 by default, at most 72."
      >
        <input
          type="number"
          min={1}
          max={72}
          value={windowHours}
          onChange={(e) => setWindowHours(e.target.value)}
        />
      </Field>
      <div className="registers-check">
        <input
          id="breach-drill-check"
          type="checkbox"
          checked={drill}
          onChange={(e) => setDrill(e.target.checked)}
        />
        <label htmlFor="breach-drill-check">This is a drill (no webhook events, nobody is told)</label>
      </div>
      <ErrorNotice error={unclaimedError(error, RECORD_FIELDS)} title="The breach was not recorded" />
      <div className="registers-actions">
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Recording…" : "Record breach"}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
