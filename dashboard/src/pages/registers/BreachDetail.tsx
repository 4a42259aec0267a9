// One breach: its clocks and timestamps; the text and the report times (Board first intimation,
// detailed report, CERT-In) a DPO records; adding the affected principals (by externalId or by
// purpose); and telling them (r.7(1)), which needs the consequences, the safety measures and a
// contact. Report times once recorded are kept by the server, so they are shown, not edited.
import { useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import type { PageProps } from "../../routes.js";
import {
  BREACH_STATUS_LABELS,
  breachPatch,
  breachReportsFormOf,
  splitLines,
  type BreachReportsForm,
} from "../../lib/registers.js";
import { Link } from "../../router.js";
import {
  ConfirmDialog,
  Countdown,
  DateTime,
  ErrorNotice,
  Field,
  Loading,
  Notice,
  Page,
  unclaimedError,
  useApi,
  WriteGuard,
} from "../../ui/index.js";
import { BreachClock } from "./Breaches.js";
import "./registers.css";

type Breach = Schemas["StaffBreach"];

export default function BreachDetailPage({ params }: PageProps) {
  const breachId = params.breachId ?? "";
  const loaded = useApi(
    () => ok(api.GET("/api/v1/staff/breaches/{breachId}", { params: { path: { breachId } } })),
    [breachId],
  );
  const [done, setDone] = useState<string | null>(null);
  const breach = loaded.data;
  return (
    <Page title={breach?.drill ? "Breach drill" : "Breach"}>
      <p>
        <Link to="/breaches">← All breaches</Link>
      </p>
      {!breach ? (
        loaded.error ? (
          <ErrorNotice error={loaded.error} title="Could not load the breach" onRetry={loaded.reload} />
        ) : (
          <Loading label="Loading the breach…" />
        )
      ) : (
        <>
          {done ? <Notice tone="success">{done}</Notice> : null}
          <Facts breach={breach} />
          <WriteGuard>
            <ReportsForm
              key={`${breach.breachId}-${breach.updatedAt}`}
              breach={breach}
              onSaved={(message, now) => {
                setDone(message);
                // The PATCH answers the breach now in force: shown with the notice (the times it
                // recorded become read-only at once), not after a reload.
                if (now) loaded.replace(now);
                else loaded.reload();
              }}
            />
            <AddPrincipals
              breach={breach}
              onAdded={(added) => {
                setDone(added === 1 ? "1 principal added." : `${added} principals added.`);
                loaded.reload();
              }}
            />
            <NotifyPrincipals
              breach={breach}
              onNotified={(notified) => {
                setDone(
                  breach.drill
                    ? `Drill: ${notified} principals marked as rehearsed; nobody was told.`
                    : `${notified} ${notified === 1 ? "principal" : "principals"} told.`,
                );
                loaded.reload();
              }}
            />
          </WriteGuard>
        </>
      )}
    </Page>
  );
}

function Facts({ breach }: { breach: Breach }) {
  return (
    <section className="registers-section" aria-labelledby="breach-facts">
      <h2 id="breach-facts">
        {breach.drill ? "Drill " : ""}
        <span className="registers-id">{breach.breachId}</span>
      </h2>
      <p className="registers-body">{breach.description}</p>
      <dl className="registers-facts">
        <dt>Status</dt>
        <dd>{BREACH_STATUS_LABELS[breach.status]}</dd>
        <dt>Discovered</dt>
        <dd>
          <DateTime value={breach.discoveredAt} />
        </dd>
        <dt>Occurred</dt>
        <dd>
          <DateTime value={breach.occurredAt} />
        </dd>
        <dt>Tell principals by</dt>
        <dd>
          <DateTime value={breach.principalNotificationDueAt} />{" "}
          <BreachClock
            dueAt={breach.principalNotificationDueAt}
            state={breach.principalNotificationDueState}
          />
        </dd>
        <dt>Principals</dt>
        <dd>
          {breach.affectedPrincipals.total} affected, {breach.affectedPrincipals.notified} told,{" "}
          {breach.affectedPrincipals.pending} not yet told
          {breach.reportedToUserAt !== null ? (
            <>
              {" "}
              (all told <DateTime value={breach.reportedToUserAt} />)
            </>
          ) : null}
        </dd>
        <dt>Detailed report to the Board by</dt>
        <dd>
          <DateTime value={breach.boardReportDueAt} />{" "}
          <BreachClock dueAt={breach.boardReportDueAt} state={breach.boardReportDueState} />
        </dd>
        <dt>Board first intimation</dt>
        <dd>
          <DateTime value={breach.reportedToBoardAt} />
        </dd>
        <dt>Detailed report submitted</dt>
        <dd>
          <DateTime value={breach.detailedReportSubmittedAt} />
        </dd>
        <dt>CERT-In (6 h, if reportable)</dt>
        <dd>
          {breach.certInReportSubmittedAt !== null ? (
            <>
              Reported <DateTime value={breach.certInReportSubmittedAt} />
            </>
          ) : (
            <>
              <DateTime value={breach.certInReportDueAt} /> <Countdown dueAt={breach.certInReportDueAt} />
            </>
          )}
        </dd>
        <dt>Affected purposes</dt>
        <dd>{breach.affectedPurposes.length > 0 ? breach.affectedPurposes.join("; ") : "—"}</dd>
        <dt>Affected data</dt>
        <dd>{breach.affectedDataCategories.length > 0 ? breach.affectedDataCategories.join(", ") : "—"}</dd>
        <dt>Mitigation</dt>
        <dd className="registers-body">{breach.mitigation ?? "— (needed before principals are told)"}</dd>
        <dt>Recorded by</dt>
        <dd>
          {breach.recordedBy}, <DateTime value={breach.createdAt} />
        </dd>
      </dl>
    </section>
  );
}

const REPORT_FIELDS = [
  "description",
  "mitigation",
  "reportedToBoardAt",
  "detailedReportSubmittedAt",
  "certInReportSubmittedAt",
] as const;

function ReportsForm({
  breach,
  onSaved,
}: {
  breach: Breach;
  /** What to say, and the breach as the save left it (none when there was nothing to save). */
  onSaved: (message: string, now?: Breach) => void;
}) {
  const [form, setForm] = useState<BreachReportsForm>(() => breachReportsFormOf(breach));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const set = (key: keyof BreachReportsForm, value: string) => setForm((f) => ({ ...f, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const patch = breachPatch(breach, form);
    if (!patch) {
      onSaved("Nothing changed.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const now = await ok(
        api.PATCH("/api/v1/staff/breaches/{breachId}", {
          params: { path: { breachId: breach.breachId } },
          body: patch,
        }),
      );
      onSaved("The breach is saved.", now);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const time = (
    key: "reportedToBoardAt" | "detailedReportSubmittedAt" | "certInReportSubmittedAt",
    label: string,
    hint: string,
  ) => (
    <Field
      label={label}
      name={key}
      error={error}
      hint={breach[key] !== null ? "Recorded; kept as it is." : hint}
    >
      <input
        type="datetime-local"
        value={form[key]}
        readOnly={breach[key] !== null}
        onChange={(e) => set(key, e.target.value)}
      />
    </Field>
  );

  return (
    <section className="registers-section" aria-labelledby="breach-reports">
      <h2 id="breach-reports">Text and reports</h2>
      <form className="registers-form" onSubmit={(e) => void submit(e)} aria-label="Text and reports">
        <Field label="What happened" name="description" error={error}>
          <textarea value={form.description} onChange={(e) => set("description", e.target.value)} rows={3} />
        </Field>
        <Field label="Mitigation" name="mitigation" error={error}>
          <textarea value={form.mitigation} onChange={(e) => set("mitigation", e.target.value)} rows={2} />
        </Field>
        {time("reportedToBoardAt", "Board first intimation at", "When the Board was first told (r.7(2)(a)).")}
        {time(
          "detailedReportSubmittedAt",
          "Detailed report submitted at",
          "Stops the 72-hour clock (r.7(2)(b)); after the first intimation.",
        )}
        {time(
          "certInReportSubmittedAt",
          "Reported to CERT-In at",
          "If the incident is reportable to CERT-In.",
        )}
        <ErrorNotice error={unclaimedError(error, REPORT_FIELDS)} title="The breach was not saved" />
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Saving…" : "Save"}
        </button>
      </form>
    </section>
  );
}

function AddPrincipals({ breach, onAdded }: { breach: Breach; onAdded: (added: number) => void }) {
  const [by, setBy] = useState<"externalIds" | "purposes">("externalIds");
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const items = splitLines(text);
    try {
      const result = await ok(
        api.POST("/api/v1/staff/breaches/{breachId}/principals", {
          params: { path: { breachId: breach.breachId } },
          body: by === "externalIds" ? { externalIds: items } : { purposes: items },
        }),
      );
      setText("");
      onAdded(result.added);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="registers-section" aria-labelledby="breach-principals">
      <h2 id="breach-principals">Add affected principals</h2>
      <form className="registers-form" onSubmit={(e) => void submit(e)} aria-label="Add affected principals">
        <fieldset>
          <legend>Add by</legend>
          <div className="registers-check">
            <input
              id="by-ids"
              type="radio"
              name="by"
              checked={by === "externalIds"}
              onChange={() => setBy("externalIds")}
            />
            <label htmlFor="by-ids">Their ids in your systems (externalId)</label>
          </div>
          <div className="registers-check">
            <input
              id="by-purposes"
              type="radio"
              name="by"
              checked={by === "purposes"}
              onChange={() => setBy("purposes")}
            />
            <label htmlFor="by-purposes">Everyone who consented to a purpose</label>
          </div>
        </fieldset>
        <Field
          label={by === "externalIds" ? "External ids" : "Purposes"}
          name={by}
          error={error}
          hint="One per line. Principals already on the breach are skipped."
        >
          <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} />
        </Field>
        <ErrorNotice error={unclaimedError(error, [by])} title="No principals were added" />
        <button type="submit" className="button" disabled={busy} aria-busy={busy}>
          {busy ? "Adding…" : "Add principals"}
        </button>
      </form>
    </section>
  );
}

const NOTIFY_FIELDS = ["consequences", "safetyMeasures", "contact"] as const;

function NotifyPrincipals({
  breach,
  onNotified,
}: {
  breach: Breach;
  onNotified: (notified: number) => void;
}) {
  const [open, setOpen] = useState(false);
  const [consequences, setConsequences] = useState("");
  const [safetyMeasures, setSafetyMeasures] = useState("");
  const [contact, setContact] = useState("");
  const [error, setError] = useState<unknown>(undefined);
  return (
    <section className="registers-section" aria-labelledby="breach-notify">
      <h2 id="breach-notify">Tell the affected principals</h2>
      <p className="registers-intro">
        {breach.affectedPrincipals.pending} not yet told. Each is told what happened, when, the likely
        consequences for them, the mitigation, what they can do and whom to contact (r.7(1)). Principals
        already told are not told again.
      </p>
      <button
        type="button"
        className="button button-primary"
        onClick={() => {
          setError(undefined);
          setOpen(true);
        }}
      >
        Notify principals
      </button>
      <ConfirmDialog
        open={open}
        title={breach.drill ? "Rehearse telling the principals?" : "Tell the affected principals?"}
        confirmLabel={breach.drill ? "Rehearse" : "Notify principals"}
        onCancel={() => setOpen(false)}
        onConfirm={async () => {
          setError(undefined);
          try {
            const result = await ok(
              api.POST("/api/v1/staff/breaches/{breachId}/notify-principals", {
                params: { path: { breachId: breach.breachId } },
                body: {
                  consequences: consequences.trim(),
                  safetyMeasures: safetyMeasures.trim(),
                  contact: contact.trim(),
                },
              }),
            );
            setOpen(false);
            onNotified(result.notified);
          } catch (caught) {
            // A field's problem shows at the field; anything else (no principals, no mitigation) in the dialog.
            if (caught instanceof ApiError && NOTIFY_FIELDS.some((f) => f === caught.field)) {
              setError(caught);
              return;
            }
            throw caught;
          }
        }}
      >
        <Field label="Likely consequences for them" name="consequences" error={error}>
          <textarea
            value={consequences}
            onChange={(e) => setConsequences(e.target.value)}
            rows={2}
            maxLength={2000}
          />
        </Field>
        <Field label="What they can do to protect themselves" name="safetyMeasures" error={error}>
          <textarea
            value={safetyMeasures}
            onChange={(e) => setSafetyMeasures(e.target.value)}
            rows={2}
            maxLength={2000}
          />
        </Field>
        <Field label="Contact who can answer their questions" name="contact" error={error}>
          <input value={contact} onChange={(e) => setContact(e.target.value)} maxLength={2000} />
        </Field>
      </ConfirmDialog>
    </section>
  );
}
