// Retention (issue 27; DPDP Act s.8(7), DPDP Rules 2025 r.8 and the Third Schedule): the policies
// saying how long data is kept after an anchor event (made from a Third-Schedule preset or by hand;
// their name and terms changed; archived when no longer wanted), the events Guard cannot observe
// (reported by staff here, or by the fiduciary's backend), the legal holds that suspend erasure,
// every scheduled erasure in its state, and how long Guard keeps its own logs (r.8(3)). Viewers
// read only.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { api, ok, type operations, type Schemas } from "../../api/client.js";
import { withFieldError } from "../../api/errors.js";
import {
  ANCHOR_EVENT_LABELS,
  ERASURE_STATUS_LABELS,
  formatDays,
  fromLocalInput,
  LOG_CLASS_LABELS,
  LOG_CLASSES,
  logRetentionFormOf,
  logRetentionPatch,
  type LogClass,
  type LogRetentionForm,
  movesWindows,
  policyTermsFormOf,
  policyTermsPatch,
  type PolicyTermsForm,
} from "../../lib/registers.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  ErrorNotice,
  Field,
  Notice,
  Page,
  unclaimedError,
  useApi,
  useCanWrite,
  useIdempotencyKey,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { PagedBody } from "../integrations/ListStatus.js";
import { usePagedList, type PagedList } from "../integrations/usePagedList.js";
import "./registers.css";

type Policy = Schemas["RetentionPolicy"];
type Preset = Schemas["RetentionPreset"];
type Hold = Schemas["LegalHold"];
type Erasure = Schemas["ScheduledErasure"];
type Anchor = Schemas["RetentionAnchorEvent"];
type ErasureStatus = Schemas["ScheduledErasureStatus"];

const ANCHORS = Object.keys(ANCHOR_EVENT_LABELS) as Anchor[];
const ERASURE_STATUSES = Object.keys(ERASURE_STATUS_LABELS) as ErasureStatus[];

export default function RetentionPage() {
  const [done, setDone] = useState<string | null>(null);
  const policies = usePagedList(async (cursor) => {
    const data = await ok(
      api.GET("/api/v1/staff/retention/policies", { params: { query: { cursor, includeArchived: true } } }),
    );
    return { items: data.policies, nextCursor: data.nextCursor };
  }, []);
  return (
    <Page
      title="Retention"
      intro="How long personal data is kept once its purpose ends (DPDP Act s.8(7)), the legal holds that suspend erasure, and every erasure Guard has scheduled. Principals are told at least 48 hours before their data is erased (DPDP Rules 2025 r.8(2))."
    >
      {done ? <Notice tone="success">{done}</Notice> : null}
      <PoliciesSection policies={policies} onDone={setDone} />
      <EventsSection onDone={setDone} />
      <HoldsSection policies={policies.items} onDone={setDone} />
      <ErasuresSection policies={policies.items} onDone={setDone} />
      <LogRetentionSection onDone={setDone} />
    </Page>
  );
}

function PoliciesSection({
  policies,
  onDone,
}: {
  policies: PagedList<Policy>;
  onDone: (message: string) => void;
}) {
  const canWrite = useCanWrite();
  const presets = useApi(() => ok(api.GET("/api/v1/staff/retention/presets")), []);
  const [archiving, setArchiving] = useState<Policy | null>(null);
  const [editing, setEditing] = useState<Policy | null>(null);
  const columns: Column<Policy>[] = [
    {
      key: "name",
      header: "Policy",
      rowHeader: true,
      render: (p) => (
        <>
          {p.name} <span className="registers-id">{p.policyId}</span>
        </>
      ),
    },
    { key: "purpose", header: "Purpose", render: (p) => p.purpose },
    {
      key: "window",
      header: "Kept for",
      render: (p) =>
        `${formatDays(p.durationDays)} after ${ANCHOR_EVENT_LABELS[p.anchorEvent].toLowerCase()}`,
    },
    { key: "notice", header: "Notice", render: (p) => `${p.noticeHours} h before` },
    { key: "preset", header: "Preset", render: (p) => p.preset ?? "Custom" },
    {
      key: "state",
      header: "State",
      render: (p) =>
        p.archivedAt === null ? (
          "Active"
        ) : (
          <span className="registers-state registers-state-off">
            Archived <DateTime value={p.archivedAt} />
          </span>
        ),
    },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (p) =>
        p.archivedAt === null ? (
          <span className="registers-actions">
            <button
              type="button"
              className="button button-small"
              aria-label={`Edit ${p.name}`}
              onClick={() => setEditing(p)}
            >
              Edit
            </button>
            <button
              type="button"
              className="button button-small button-danger"
              aria-label={`Archive ${p.name}`}
              onClick={() => setArchiving(p)}
            >
              Archive
            </button>
          </span>
        ) : null,
    });
  return (
    <section className="registers-section" aria-labelledby="policies">
      <h2 id="policies">Policies</h2>
      <WriteGuard>
        {presets.error ? (
          <ErrorNotice error={presets.error} title="Could not load the presets" onRetry={presets.reload} />
        ) : null}
        {editing ? (
          <EditPolicyForm
            key={editing.policyId}
            policy={editing}
            onCancel={() => setEditing(null)}
            onSaved={(message) => {
              onDone(message);
              setEditing(null);
              policies.reload();
            }}
          />
        ) : (
          <CreatePolicyForm
            presets={presets.data?.presets ?? []}
            onCreated={(p) => {
              onDone(`The policy “${p.name}” is created as ${p.policyId}.`);
              policies.reload();
            }}
          />
        )}
      </WriteGuard>
      <PagedBody list={policies} what="policies">
        <DataTable
          caption="Retention policies"
          captionHidden
          columns={columns}
          rows={policies.items}
          rowKey={(p) => p.policyId}
          empty={<p className="registers-intro">No retention policies yet.</p>}
        />
      </PagedBody>
      <ConfirmDialog
        open={archiving !== null}
        title={`Archive the policy “${archiving?.name ?? ""}”?`}
        confirmLabel="Archive policy"
        danger
        onCancel={() => setArchiving(null)}
        onConfirm={async () => {
          if (!archiving) return;
          await ok(
            api.POST("/api/v1/staff/retention/policies/{policyId}/archive", {
              params: { path: { policyId: archiving.policyId } },
            }),
          );
          onDone(`The policy “${archiving.name}” is archived; its open erasures are cancelled.`);
          setArchiving(null);
          policies.reload();
        }}
      >
        <p>It schedules nothing more and its open erasures are cancelled. It is kept on record.</p>
      </ConfirmDialog>
    </section>
  );
}

const POLICY_FIELDS = [
  "preset",
  "name",
  "purpose",
  "activityId",
  "anchorEvent",
  "durationDays",
  "noticeHours",
  "windowFloorAt",
] as const;

function CreatePolicyForm({ presets, onCreated }: { presets: Preset[]; onCreated: (p: Policy) => void }) {
  const [preset, setPreset] = useState<"" | Preset["name"]>("");
  const [name, setName] = useState("");
  const [target, setTarget] = useState<"purpose" | "activityId">("purpose");
  const [purpose, setPurpose] = useState("");
  const [activityId, setActivityId] = useState("");
  const [anchorEvent, setAnchorEvent] = useState<"" | Anchor>("");
  const [durationDays, setDurationDays] = useState("");
  const [noticeHours, setNoticeHours] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const idempotency = useIdempotencyKey();
  const chosen = presets.find((p) => p.name === preset);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const policy = await ok(
        api.POST("/api/v1/staff/retention/policies", {
          body: {
            ...(preset ? { preset } : {}),
            ...(name.trim() ? { name: name.trim() } : {}),
            ...(target === "purpose" ? { purpose: purpose.trim() } : { activityId: activityId.trim() }),
            ...(anchorEvent ? { anchorEvent } : {}),
            ...(durationDays.trim() ? { durationDays: Number(durationDays) } : {}),
            ...(noticeHours.trim() ? { noticeHours: Number(noticeHours) } : {}),
          },
          headers: { "Idempotency-Key": idempotency.key },
        }),
      );
      idempotency.renew();
      setName("");
      setPurpose("");
      setActivityId("");
      setDurationDays("");
      setNoticeHours("");
      onCreated(policy);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const fromPreset = (value: string | number | undefined) =>
    chosen ? `From the preset: ${value}.` : undefined;
  return (
    <form className="registers-form" onSubmit={(e) => void submit(e)} aria-label="Create a retention policy">
      <Field
        label="Made from"
        name="preset"
        error={error}
        hint={
          chosen
            ? `${chosen.title}: ${chosen.appliesTo}`
            : "A Third-Schedule class fills in the terms; fields you set override it."
        }
      >
        <select value={preset} onChange={(e) => setPreset(e.target.value as "" | Preset["name"])}>
          <option value="">Custom policy</option>
          {presets.map((p) => (
            <option key={p.name} value={p.name}>
              Third Schedule: {p.title}
            </option>
          ))}
        </select>
      </Field>
      <Field label={chosen ? "Name (optional)" : "Name"} name="name" error={error}>
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
      </Field>
      <fieldset>
        <legend>Covers</legend>
        <div className="registers-check">
          <input
            id="policy-by-purpose"
            type="radio"
            name="policy-target"
            checked={target === "purpose"}
            onChange={() => setTarget("purpose")}
          />
          <label htmlFor="policy-by-purpose">A consent purpose</label>
        </div>
        <div className="registers-check">
          <input
            id="policy-by-activity"
            type="radio"
            name="policy-target"
            checked={target === "activityId"}
            onChange={() => setTarget("activityId")}
          />
          <label htmlFor="policy-by-activity">A processing activity (its purpose)</label>
        </div>
      </fieldset>
      {target === "purpose" ? (
        <Field label="Purpose" name="purpose" error={error}>
          <input value={purpose} onChange={(e) => setPurpose(e.target.value)} maxLength={500} />
        </Field>
      ) : (
        <Field
          label="Processing activity id"
          name="activityId"
          error={error}
          hint="act_…, from Records of processing."
        >
          <input value={activityId} onChange={(e) => setActivityId(e.target.value)} />
        </Field>
      )}
      <Field
        label="Window starts at"
        name="anchorEvent"
        error={error}
        hint={fromPreset(chosen && ANCHOR_EVENT_LABELS[chosen.anchorEvent])}
      >
        <select value={anchorEvent} onChange={(e) => setAnchorEvent(e.target.value as "" | Anchor)}>
          <option value="">{chosen ? "As the preset says" : "Choose…"}</option>
          {ANCHORS.map((a) => (
            <option key={a} value={a}>
              {ANCHOR_EVENT_LABELS[a]}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Kept for (days)"
        name="durationDays"
        error={error}
        hint={fromPreset(chosen && formatDays(chosen.durationDays))}
      >
        <input
          type="number"
          min={1}
          max={36500}
          value={durationDays}
          onChange={(e) => setDurationDays(e.target.value)}
        />
      </Field>
      <Field
        label="Tell the principal (hours before erasure)"
        name="noticeHours"
        error={error}
        hint={fromPreset(chosen?.noticeHours) ?? "At least 48 (r.8(2)); 48 when left empty."}
      >
        <input
          type="number"
          min={48}
          max={8760}
          value={noticeHours}
          onChange={(e) => setNoticeHours(e.target.value)}
        />
      </Field>
      <ErrorNotice error={unclaimedError(error, POLICY_FIELDS)} title="The policy was not created" />
      <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
        {busy ? "Creating…" : "Create policy"}
      </button>
    </form>
  );
}

const TERMS_FIELDS = ["name", "durationDays", "noticeHours", "windowFloorAt"] as const;

/**
 * Changes an active policy's name and terms (what `updateRetentionPolicy` allows; its purpose and
 * anchor stay). Only what the user changed is sent; each change is on the audit chain.
 */
function EditPolicyForm({
  policy,
  onCancel,
  onSaved,
}: {
  policy: Policy;
  onCancel: () => void;
  onSaved: (message: string) => void;
}) {
  const [loaded] = useState(() => policyTermsFormOf(policy));
  const [form, setForm] = useState<PolicyTermsForm>(loaded);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const set = (field: keyof PolicyTermsForm) => (value: string) => setForm((f) => ({ ...f, [field]: value }));
  // The form opens above the table the Edit button is in: bring it to the user.
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    nameRef.current?.focus();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const patch = policyTermsPatch(loaded, form);
    if (!patch) {
      onSaved("Nothing changed.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const saved = await ok(
        api.PATCH("/api/v1/staff/retention/policies/{policyId}", {
          params: { path: { policyId: policy.policyId } },
          body: patch,
        }),
      );
      onSaved(
        movesWindows(patch)
          ? `“${saved.name}” is saved. Its open erasures are cancelled and will be scheduled again under the new terms.`
          : `“${saved.name}” is saved.`,
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="registers-form"
      onSubmit={(e) => void submit(e)}
      aria-label={`Change the policy “${policy.name}”`}
    >
      <h3>Change “{policy.name}”</h3>
      <p className="registers-intro">
        Covers {policy.purpose}, from {ANCHOR_EVENT_LABELS[policy.anchorEvent].toLowerCase()}. Changing how
        long data is kept, or the date before which no window starts, moves every window: the policy&apos;s
        open erasures are cancelled and scheduled again.
      </p>
      <Field label="Name" name="name" error={error}>
        <input
          ref={nameRef}
          value={form.name}
          onChange={(e) => set("name")(e.target.value)}
          maxLength={200}
        />
      </Field>
      <Field
        label="Kept for (days)"
        name="durationDays"
        error={error}
        hint={formatDays(policy.durationDays) + " now."}
      >
        <input
          type="number"
          min={1}
          max={36500}
          value={form.durationDays}
          onChange={(e) => set("durationDays")(e.target.value)}
        />
      </Field>
      <Field
        label="Tell the principal (hours before erasure)"
        name="noticeHours"
        error={error}
        hint="At least 48 (r.8(2)); applies to erasures not yet notified."
      >
        <input
          type="number"
          min={48}
          max={8760}
          value={form.noticeHours}
          onChange={(e) => set("noticeHours")(e.target.value)}
        />
      </Field>
      <Field
        label="No window starts before"
        name="windowFloorAt"
        error={error}
        hint="Optional: for example the date the Rules came into force. Empty for none."
      >
        <input
          type="datetime-local"
          value={form.windowFloorAt}
          onChange={(e) => set("windowFloorAt")(e.target.value)}
        />
      </Field>
      <ErrorNotice error={unclaimedError(error, TERMS_FIELDS)} title="The policy was not saved" />
      <div className="registers-actions">
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Saving…" : "Save changes"}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

type EventKind = operations["recordRetentionEvent"]["requestBody"]["content"]["application/json"]["kind"];

/** Each kind with its option label and how the success notice names what was recorded. */
const EVENT_KINDS: { value: EventKind; label: string; recorded: string }[] = [
  { value: "account_closed", label: "Account closed", recorded: "The account's closure" },
  { value: "purpose_served", label: "Purpose served", recorded: "The purpose served" },
  { value: "interaction", label: "Interaction (logged in, or contacted you)", recorded: "The interaction" },
];

const EVENT_FIELDS = ["userId", "kind", "purpose", "occurredAt"] as const;

/**
 * Events Guard cannot see for itself, which start or restart retention windows
 * (`recordRetentionEvent`): usually sent by the fiduciary's backend with its service key; here a
 * DPO reports one learnt another way (a closure asked for on the phone, a purpose fulfilled
 * offline). Writers only: there is nothing here for a viewer to read.
 */
function EventsSection({ onDone }: { onDone: (message: string) => void }) {
  const canWrite = useCanWrite();
  const [userId, setUserId] = useState("");
  const [kind, setKind] = useState<EventKind>("account_closed");
  const [purpose, setPurpose] = useState("");
  const [occurredAt, setOccurredAt] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const idempotency = useIdempotencyKey();
  if (!canWrite) return null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const at = fromLocalInput(occurredAt);
    try {
      const recorded = await ok(
        api.POST("/api/v1/staff/retention/events", {
          body: {
            userId: userId.trim(),
            kind,
            ...(kind === "purpose_served" ? { purpose: purpose.trim() } : {}),
            ...(at !== undefined ? { occurredAt: at } : {}),
          },
          headers: { "Idempotency-Key": idempotency.key },
        }),
      );
      idempotency.renew();
      setUserId("");
      setPurpose("");
      setOccurredAt("");
      const what = EVENT_KINDS.find((k) => k.value === recorded.kind)?.recorded ?? "The event";
      onDone(
        `${what} is recorded for ${recorded.userId}. The retention sweep applies it within minutes (every server runs it every 5 minutes).`,
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="registers-section" aria-labelledby="retention-events">
      <h2 id="retention-events">Report an event</h2>
      <p className="registers-intro">
        Guard sees consents withdrawn for itself; an account closed, a purpose served or a principal&apos;s
        activity it learns from you. Your backend usually reports them with its service key; report one here
        when you learnt it another way. Activity cancels an inactivity erasure and restarts its window (DPDP
        Rules 2025 r.8(2)).
      </p>
      <form className="registers-form" onSubmit={(e) => void submit(e)} aria-label="Report a retention event">
        <Field label="Principal (externalId)" name="userId" error={error}>
          <input value={userId} onChange={(e) => setUserId(e.target.value)} maxLength={200} />
        </Field>
        <Field label="What happened" name="kind" error={error}>
          <select value={kind} onChange={(e) => setKind(e.target.value as EventKind)}>
            {EVENT_KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        </Field>
        {kind === "purpose_served" ? (
          <Field label="Purpose" name="purpose" error={error} hint="The purpose as your policies name it.">
            <input value={purpose} onChange={(e) => setPurpose(e.target.value)} maxLength={500} />
          </Field>
        ) : null}
        <Field
          label="When (optional)"
          name="occurredAt"
          error={error}
          hint="Empty: now. Never in the future."
        >
          <input type="datetime-local" value={occurredAt} onChange={(e) => setOccurredAt(e.target.value)} />
        </Field>
        <ErrorNotice error={unclaimedError(error, EVENT_FIELDS)} title="The event was not recorded" />
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Recording…" : "Record event"}
        </button>
      </form>
    </section>
  );
}

function HoldsSection({ policies, onDone }: { policies: Policy[]; onDone: (message: string) => void }) {
  const canWrite = useCanWrite();
  const [status, setStatus] = useState<"" | "active" | "inactive">("");
  const holds = usePagedList(
    async (cursor) => {
      const data = await ok(
        api.GET("/api/v1/staff/retention/holds", {
          params: { query: { cursor, ...(status ? { status } : {}) } },
        }),
      );
      return { items: data.holds, nextCursor: data.nextCursor };
    },
    [status],
  );
  const [releasing, setReleasing] = useState<Hold | null>(null);
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<unknown>(undefined);
  const policyName = (id: string | null) =>
    id === null ? "Every policy" : (policies.find((p) => p.policyId === id)?.name ?? id);
  const columns: Column<Hold>[] = [
    {
      key: "covers",
      header: "Covers",
      rowHeader: true,
      render: (h) => `${h.userId ?? "Every principal"} · ${policyName(h.policyId)}`,
    },
    { key: "basis", header: "Legal basis", render: (h) => `${h.statute}: ${h.citation}` },
    { key: "placed", header: "Placed", render: (h) => <DateTime value={h.createdAt} /> },
    {
      key: "ends",
      header: "Ends",
      render: (h) => (h.endsAt === null ? "When released" : <DateTime value={h.endsAt} />),
    },
    {
      key: "state",
      header: "State",
      render: (h) =>
        h.active ? (
          <span className="registers-state">In force</span>
        ) : h.releasedAt !== null ? (
          <span className="registers-state registers-state-off" title={h.releaseReason ?? undefined}>
            Released <DateTime value={h.releasedAt} />
          </span>
        ) : (
          <span className="registers-state registers-state-off">Ended</span>
        ),
    },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (h) =>
        h.active ? (
          <button
            type="button"
            className="button button-small"
            aria-label={`Release hold ${h.holdId}`}
            onClick={() => {
              setReason("");
              setReasonError(undefined);
              setReleasing(h);
            }}
          >
            Release
          </button>
        ) : null,
    });
  return (
    <section className="registers-section" aria-labelledby="holds">
      <h2 id="holds">Legal holds</h2>
      <p className="registers-intro">
        A hold cites the law that requires the data to be kept; while it is in force, the erasures it covers
        wait.
      </p>
      <WriteGuard>
        <PlaceHoldForm
          policies={policies.filter((p) => p.archivedAt === null)}
          onPlaced={(h) => {
            onDone(`The legal hold ${h.holdId} is in force.`);
            holds.reload();
          }}
        />
      </WriteGuard>
      <form className="registers-filters" aria-label="Hold filters" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="hold-status">Show</label>
          <select
            id="hold-status"
            value={status}
            onChange={(e) => setStatus(e.target.value as "" | "active" | "inactive")}
          >
            <option value="">All holds</option>
            <option value="active">In force</option>
            <option value="inactive">Released or ended</option>
          </select>
        </div>
      </form>
      <PagedBody list={holds} what="holds">
        <DataTable
          caption="Legal holds"
          captionHidden
          columns={columns}
          rows={holds.items}
          rowKey={(h) => h.holdId}
          empty={<p className="registers-intro">No legal holds.</p>}
        />
      </PagedBody>
      <ConfirmDialog
        open={releasing !== null}
        title="Release the legal hold?"
        confirmLabel="Release hold"
        onCancel={() => setReleasing(null)}
        onConfirm={async () => {
          if (!releasing) return;
          const written = await withFieldError(
            "reason",
            () =>
              ok(
                api.POST("/api/v1/staff/retention/holds/{holdId}/release", {
                  params: { path: { holdId: releasing.holdId } },
                  body: { reason: reason.trim() },
                }),
              ),
            setReasonError,
          );
          if (!written) return;
          onDone(`The legal hold ${releasing.holdId} is released; its erasures proceed after notice.`);
          setReleasing(null);
          holds.reload();
        }}
      >
        <p>
          The erasures it suspended proceed: each principal is told first, and erased after the notice period.
        </p>
        <Field label="Reason" name="reason" error={reasonError} hint="Kept in the audit trail.">
          <textarea value={reason} onChange={(e) => setReason(e.target.value)} rows={2} maxLength={500} />
        </Field>
      </ConfirmDialog>
    </section>
  );
}

const HOLD_FIELDS = ["userId", "policyId", "statute", "citation", "endsAt"] as const;

function PlaceHoldForm({ policies, onPlaced }: { policies: Policy[]; onPlaced: (h: Hold) => void }) {
  const [userId, setUserId] = useState("");
  const [policyId, setPolicyId] = useState("");
  const [statute, setStatute] = useState("");
  const [citation, setCitation] = useState("");
  const [endsAt, setEndsAt] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const idempotency = useIdempotencyKey();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const ends = fromLocalInput(endsAt);
    try {
      const hold = await ok(
        api.POST("/api/v1/staff/retention/holds", {
          body: {
            ...(userId.trim() ? { userId: userId.trim() } : {}),
            ...(policyId ? { policyId } : {}),
            statute: statute.trim(),
            citation: citation.trim(),
            ...(ends !== undefined ? { endsAt: ends } : {}),
          },
          headers: { "Idempotency-Key": idempotency.key },
        }),
      );
      idempotency.renew();
      setUserId("");
      setPolicyId("");
      setStatute("");
      setCitation("");
      setEndsAt("");
      onPlaced(hold);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="registers-form" onSubmit={(e) => void submit(e)} aria-label="Place a legal hold">
      <Field
        label="Principal (externalId)"
        name="userId"
        error={error}
        hint="Empty: every principal under the policy."
      >
        <input value={userId} onChange={(e) => setUserId(e.target.value)} maxLength={200} />
      </Field>
      <Field label="Policy" name="policyId" error={error} hint="Empty: every policy of the principal.">
        <select value={policyId} onChange={(e) => setPolicyId(e.target.value)}>
          <option value="">Every policy</option>
          {policies.map((p) => (
            <option key={p.policyId} value={p.policyId}>
              {p.name}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Statute"
        name="statute"
        error={error}
        hint="e.g. “Prevention of Money-laundering Act, 2002, s.12”."
      >
        <input value={statute} onChange={(e) => setStatute(e.target.value)} maxLength={300} />
      </Field>
      <Field
        label="Citation"
        name="citation"
        error={error}
        hint="The order, notice or case that requires the data kept."
      >
        <textarea value={citation} onChange={(e) => setCitation(e.target.value)} rows={2} maxLength={2000} />
      </Field>
      <Field label="Ends at (optional)" name="endsAt" error={error}>
        <input type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} />
      </Field>
      <ErrorNotice error={unclaimedError(error, HOLD_FIELDS)} title="The hold was not placed" />
      <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
        {busy ? "Placing…" : "Place hold"}
      </button>
    </form>
  );
}

function ErasuresSection({ policies, onDone }: { policies: Policy[]; onDone: (message: string) => void }) {
  const canWrite = useCanWrite();
  const [cancelling, setCancelling] = useState<Erasure | null>(null);
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<unknown>(undefined);
  const [status, setStatus] = useState<"" | ErasureStatus>("");
  const [userInput, setUserInput] = useState("");
  const [userId, setUserId] = useState("");
  const erasures = usePagedList(
    async (cursor) => {
      const data = await ok(
        api.GET("/api/v1/staff/retention/erasures", {
          params: { query: { cursor, ...(status ? { status } : {}), ...(userId ? { userId } : {}) } },
        }),
      );
      return { items: data.erasures, nextCursor: data.nextCursor };
    },
    [status, userId],
  );
  const policyName = (id: string) => policies.find((p) => p.policyId === id)?.name ?? id;
  const columns: Column<Erasure>[] = [
    { key: "user", header: "Principal", rowHeader: true, render: (e) => e.userId },
    { key: "policy", header: "Policy", render: (e) => policyName(e.policyId) },
    {
      key: "window",
      header: "Window",
      render: (e) => (
        <>
          {ANCHOR_EVENT_LABELS[e.anchorEvent]} <DateTime value={e.anchorAt} />, elapses{" "}
          <DateTime value={e.scheduledFor} />
        </>
      ),
    },
    { key: "notified", header: "Told", render: (e) => <DateTime value={e.preNotificationSentAt} /> },
    { key: "due", header: "Due", render: (e) => <DateTime value={e.dueAt} /> },
    {
      key: "status",
      header: "State",
      render: (e) => (
        <span
          className={
            e.status === "due"
              ? "registers-state registers-state-warn"
              : e.status === "cancelled" || e.status === "executed"
                ? "registers-state registers-state-off"
                : "registers-state"
          }
          title={e.cancelNote ?? e.cancelReason ?? undefined}
        >
          {ERASURE_STATUS_LABELS[e.status]}
          {e.status === "executed" ? (
            <>
              {" "}
              <DateTime value={e.executedAt} />
            </>
          ) : null}
          {e.status === "cancelled" && e.cancelReason ? ` (${e.cancelReason.replace(/_/g, " ")})` : null}
          {e.status === "cancelled" && e.cancelNote ? `: ${e.cancelNote}` : null}
        </span>
      ),
    },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (e) =>
        e.status === "scheduled" || e.status === "held" || e.status === "due" ? (
          <button
            type="button"
            className="button button-small"
            aria-label={`Cancel erasure ${e.scheduledErasureId}`}
            onClick={() => {
              setReason("");
              setReasonError(undefined);
              setCancelling(e);
            }}
          >
            Cancel erasure
          </button>
        ) : null,
    });
  return (
    <section className="registers-section" aria-labelledby="erasures">
      <h2 id="erasures">Scheduled erasures</h2>
      <form
        className="registers-filters"
        aria-label="Erasure filters"
        onSubmit={(e) => {
          e.preventDefault();
          setUserId(userInput.trim());
        }}
      >
        <div className="field">
          <label htmlFor="erasure-status">State</label>
          <select
            id="erasure-status"
            value={status}
            onChange={(e) => setStatus(e.target.value as "" | ErasureStatus)}
          >
            <option value="">Any</option>
            {ERASURE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {ERASURE_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="erasure-user">Principal (externalId)</label>
          <input id="erasure-user" value={userInput} onChange={(e) => setUserInput(e.target.value)} />
        </div>
        <button type="submit" className="button">
          Filter
        </button>
      </form>
      <PagedBody list={erasures} what="erasures">
        <DataTable
          caption="Scheduled erasures"
          captionHidden
          columns={columns}
          rows={erasures.items}
          rowKey={(e) => e.scheduledErasureId}
          empty={<p className="registers-intro">No erasures scheduled.</p>}
        />
      </PagedBody>
      <ConfirmDialog
        open={cancelling !== null}
        title="Cancel this erasure?"
        confirmLabel="Cancel erasure"
        onCancel={() => setCancelling(null)}
        onConfirm={async () => {
          if (!cancelling) return;
          const written = await withFieldError(
            "reason",
            () =>
              ok(
                api.POST("/api/v1/staff/retention/erasures/{scheduledErasureId}/cancel", {
                  params: { path: { scheduledErasureId: cancelling.scheduledErasureId } },
                  body: { reason: reason.trim() },
                }),
              ),
            setReasonError,
          );
          if (!written) return;
          onDone(`The erasure of ${cancelling.userId}'s data under this window is cancelled.`);
          setCancelling(null);
          erasures.reload();
        }}
      >
        <p>
          The data is kept: the erasure leaves the due list and this window is not scheduled again. The
          principal&apos;s next window starts from her next activity. To suspend erasure instead, place a
          legal hold.
        </p>
        <Field label="Reason" name="reason" error={reasonError} hint="Kept in the audit trail.">
          <textarea value={reason} onChange={(ev) => setReason(ev.target.value)} rows={2} maxLength={500} />
        </Field>
      </ConfirmDialog>
    </section>
  );
}

/** What the retention job does with a class past its period (server/src/log-retention/README.md). */
const LOG_PURGES: Record<LogClass, string> = {
  auditEntries: "Oldest entries no kept record needs; a checkpoint keeps the trail verifiable",
  consentEvents: "Never: each is the evidence of a consent the organisation still holds",
  gateDecisions: "Whole months past the period",
  webhookDeliveries: "Finished deliveries of whole months past the period",
};

/**
 * How long Guard keeps its own logs (DPDP Rules 2025 r.8(3): at least a year). Kept forever unless
 * someone sets a period; a period is whole days from 365, and the daily retention job purges what
 * it allows, each purge on the audit trail.
 */
function LogRetentionSection({ onDone }: { onDone: (message: string) => void }) {
  const canWrite = useCanWrite();
  const policy = useApi(() => ok(api.GET("/api/v1/staff/log-retention/policy")), []);
  const columns: Column<LogClass>[] = [
    { key: "class", header: "Log", rowHeader: true, render: (c) => LOG_CLASS_LABELS[c] },
    {
      key: "kept",
      header: "Kept",
      render: (c) => {
        const days = policy.data?.[c].retainDays ?? null;
        return days === null ? "Forever" : `${formatDays(days)} (${days} days)`;
      },
    },
    { key: "purge", header: "Then purged", render: (c) => LOG_PURGES[c] },
    {
      key: "changed",
      header: "Last changed",
      render: (c) => {
        const entry = policy.data?.[c];
        if (!entry || entry.updatedAt === null) return "Never (the default)";
        return (
          <>
            <DateTime value={entry.updatedAt} />
            <span className="registers-id">{entry.updatedBy}</span>
          </>
        );
      },
    },
  ];
  return (
    <section className="registers-section" aria-labelledby="log-retention">
      <h2 id="log-retention">Guard&apos;s own logs</h2>
      <p className="registers-intro">
        How long Guard keeps its processing logs for this organisation. The Rules require at least a year
        (DPDP Rules 2025 r.8(3)); by default everything is kept forever. A daily job purges what a period
        allows, and records each purge on the audit trail.
      </p>
      {policy.error ? (
        <ErrorNotice
          error={policy.error}
          title="Could not load the log retention policy"
          onRetry={policy.reload}
        />
      ) : policy.data ? (
        <>
          <DataTable
            caption="Log retention"
            captionHidden
            columns={columns}
            rows={LOG_CLASSES}
            rowKey={(c) => c}
          />
          {canWrite ? (
            <LogRetentionForm
              // A saved policy reloads as new loaded values: the form starts again from them.
              key={JSON.stringify(logRetentionFormOf(policy.data))}
              loaded={logRetentionFormOf(policy.data)}
              onSaved={(message) => {
                onDone(message);
                policy.reload();
              }}
            />
          ) : null}
        </>
      ) : (
        <p className="registers-intro">Loading…</p>
      )}
    </section>
  );
}

function LogRetentionForm({
  loaded,
  onSaved,
}: {
  loaded: LogRetentionForm;
  onSaved: (message: string) => void;
}) {
  const [form, setForm] = useState<LogRetentionForm>(loaded);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const patch = logRetentionPatch(loaded, form);
    if (!patch) {
      onSaved("Nothing changed.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await ok(api.PUT("/api/v1/staff/log-retention/policy", { body: patch }));
      onSaved("The log retention policy is saved. The daily job purges what it now allows.");
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    // The API's own message shows at the field (a period under a year names its class).
    <form
      className="registers-form"
      onSubmit={(e) => void submit(e)}
      aria-label="Change how long logs are kept"
      noValidate
    >
      {LOG_CLASSES.map((logClass) => (
        <Field
          key={logClass}
          label={`${LOG_CLASS_LABELS[logClass]} (days)`}
          name={logClass}
          error={error}
          hint={
            logClass === "consentEvents"
              ? "Stored, but consent events are never purged."
              : "Empty: kept forever. At least 365."
          }
        >
          <input
            type="number"
            min={365}
            max={36500}
            value={form[logClass]}
            onChange={(e) => setForm((f) => ({ ...f, [logClass]: e.target.value }))}
          />
        </Field>
      ))}
      <ErrorNotice
        error={unclaimedError(error, LOG_CLASSES)}
        title="The log retention policy was not saved"
      />
      <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
        {busy ? "Saving…" : "Save log retention"}
      </button>
    </form>
  );
}
