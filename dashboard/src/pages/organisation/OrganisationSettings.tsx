// Every organisation setting the contract has (OrganizationSettings), each explained, saved with one
// PATCH carrying only what changed (the route keeps the rest and is idempotent).
import { useState, type FormEvent } from "react";
import { api, ok, type paths, type Schemas } from "../../api/client.js";
import {
  DateTime,
  ErrorNotice,
  Field,
  Loading,
  Notice,
  unclaimedError,
  useApi,
  useCanWrite,
  WriteGuard,
} from "../../ui/index.js";
import {
  dottedFieldError,
  durationMs,
  DurationInput,
  toDuration,
  type Duration,
} from "../../ui/DurationInput.js";

type Settings = Schemas["OrganizationSettings"];
type Change =
  paths["/api/v1/staff/organization/settings"]["patch"]["requestBody"]["content"]["application/json"];

const FIELDS = [
  "blockTrackingForChildren",
  "anonymousConsentRateLimit.perAddress",
  "anonymousConsentRateLimit.perOrganization",
  "anonymousConsentRateLimit.windowMs",
  "consentGate.windowMs",
  "consentGate.denyThreshold",
] as const;

interface Draft {
  blockTrackingForChildren: boolean;
  perAddress: string;
  perOrganization: string;
  rateWindow: Duration;
  gateWindow: Duration;
  denyThreshold: string;
}

const draftOf = (s: Settings): Draft => ({
  blockTrackingForChildren: s.blockTrackingForChildren,
  perAddress: String(s.anonymousConsentRateLimit.perAddress),
  perOrganization: String(s.anonymousConsentRateLimit.perOrganization),
  rateWindow: toDuration(s.anonymousConsentRateLimit.windowMs),
  gateWindow: toDuration(s.consentGate.windowMs),
  denyThreshold: String(s.consentGate.denyThreshold),
});

/** Only the settings the draft changes; an empty object when none. */
export function changedSettings(current: Settings, draft: Draft): Change {
  const change: Record<string, unknown> = {};
  const rate: Record<string, number> = {};
  const gate: Record<string, number> = {};
  const num = (value: string) => (value.trim() === "" ? Number.NaN : Number(value));
  if (draft.blockTrackingForChildren !== current.blockTrackingForChildren)
    change.blockTrackingForChildren = draft.blockTrackingForChildren;
  const limit = current.anonymousConsentRateLimit;
  if (num(draft.perAddress) !== limit.perAddress) rate.perAddress = num(draft.perAddress);
  if (num(draft.perOrganization) !== limit.perOrganization) rate.perOrganization = num(draft.perOrganization);
  if (durationMs(draft.rateWindow) !== limit.windowMs) rate.windowMs = durationMs(draft.rateWindow);
  if (durationMs(draft.gateWindow) !== current.consentGate.windowMs)
    gate.windowMs = durationMs(draft.gateWindow);
  if (num(draft.denyThreshold) !== current.consentGate.denyThreshold)
    gate.denyThreshold = num(draft.denyThreshold);
  if (Object.keys(rate).length > 0) change.anonymousConsentRateLimit = rate;
  if (Object.keys(gate).length > 0) change.consentGate = gate;
  return change as Change;
}

export function OrganisationSettings() {
  const settings = useApi(() => ok(api.GET("/api/v1/staff/organization/settings")), []);
  // Kept here, not in the editor: a save remounts the editor with the new values.
  const [saved, setSaved] = useState(false);
  return (
    <section className="org-section" aria-labelledby="org-settings-heading">
      <h2 id="org-settings-heading">Settings</h2>
      {settings.loading && !settings.data ? <Loading label="Loading settings…" /> : null}
      <ErrorNotice error={settings.error} onRetry={settings.reload} />
      {settings.data ? (
        <SettingsEditor
          key={settings.data.updatedAt ?? "defaults"}
          current={settings.data}
          onSaving={() => setSaved(false)}
          onSaved={(now) => {
            // The PATCH answers the settings now in force: the editor is remounted with them in the
            // same render as the notice, so no save is reported beside the values from before it.
            settings.replace(now);
            setSaved(true);
          }}
        />
      ) : null}
      {saved ? <Notice tone="success">Settings saved. They apply from the next request.</Notice> : null}
    </section>
  );
}

function SettingsEditor({
  current,
  onSaving,
  onSaved,
}: {
  current: Settings;
  onSaving: () => void;
  onSaved: (now: Settings) => void;
}) {
  const canWrite = useCanWrite();
  const [draft, setDraft] = useState<Draft>(() => draftOf(current));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) =>
      setDraft((d) => ({ ...d, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    onSaving();
    const change = changedSettings(current, draft);
    if (Object.keys(change).length === 0) {
      setError(new Error("Nothing to save: these are the settings in force."));
      return;
    }
    setBusy(true);
    try {
      onSaved(await ok(api.PATCH("/api/v1/staff/organization/settings", { body: change })));
    } catch (caught) {
      setError(dottedFieldError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="org-card" onSubmit={(event) => void submit(event)} noValidate>
      <p className="org-muted">
        Last changed:{" "}
        {current.updatedAt === null ? "never (defaults in force)" : <DateTime value={current.updatedAt} />}
      </p>
      <fieldset className="org-fieldset">
        <legend>Children</legend>
        <div className="org-check">
          <input
            id="blockTrackingForChildren"
            name="blockTrackingForChildren"
            type="checkbox"
            checked={draft.blockTrackingForChildren}
            disabled={!canWrite}
            aria-describedby="blockTrackingForChildren-hint"
            onChange={(event) => set("blockTrackingForChildren")(event.target.checked)}
          />
          <label htmlFor="blockTrackingForChildren">Block tracking for children</label>
        </div>
        <p className="field-hint" id="blockTrackingForChildren-hint">
          Refuses tracking, behavioural-monitoring and targeted-advertising purposes for a principal verified
          as a child (DPDP Act s.9(3)), and closes such consents when a guest who gave them is linked to a
          verified child. Recommended on.
        </p>
      </fieldset>
      <fieldset className="org-fieldset">
        <legend>Anonymous consent rate limit</legend>
        <p className="field-hint">
          Budgets for consents captured by the banner before sign-in, counted over a fixed window.
        </p>
        <Field
          label="Per client address"
          name="anonymousConsentRateLimit.perAddress"
          error={error}
          hint="Captures one address may make per window (1 to 1 000 000)."
        >
          <input
            type="number"
            min="1"
            step="1"
            value={draft.perAddress}
            disabled={!canWrite}
            onChange={(event) => set("perAddress")(event.target.value)}
          />
        </Field>
        <Field
          label="For the whole organisation"
          name="anonymousConsentRateLimit.perOrganization"
          error={error}
          hint="Captures for all addresses together per window (1 to 100 000 000)."
        >
          <input
            type="number"
            min="1"
            step="1"
            value={draft.perOrganization}
            disabled={!canWrite}
            onChange={(event) => set("perOrganization")(event.target.value)}
          />
        </Field>
        <Field
          label="Rate limit window"
          name="anonymousConsentRateLimit.windowMs"
          error={error}
          hint="How long each budget lasts (1 second to 1 day)."
        >
          <DurationInput
            value={draft.rateWindow}
            onChange={set("rateWindow")}
            disabled={!canWrite}
            units={["seconds", "minutes", "hours"]}
            unitLabel="Rate limit window unit"
          />
        </Field>
      </fieldset>
      <fieldset className="org-fieldset">
        <legend>Consent Gate bypass alerts</legend>
        <Field
          label="Alert window"
          name="consentGate.windowMs"
          error={error}
          hint="Denies of one consent count toward an alert while they are this recent (1 second to 30 days)."
        >
          <DurationInput
            value={draft.gateWindow}
            onChange={set("gateWindow")}
            disabled={!canWrite}
            unitLabel="Alert window unit"
          />
        </Field>
        <Field
          label="Deny threshold"
          name="consentGate.denyThreshold"
          error={error}
          hint="Denies of one consent inside the window that make an alert (1 or more)."
        >
          <input
            type="number"
            min="1"
            step="1"
            value={draft.denyThreshold}
            disabled={!canWrite}
            onChange={(event) => set("denyThreshold")(event.target.value)}
          />
        </Field>
      </fieldset>
      <ErrorNotice error={unclaimedError(error, FIELDS)} title="The settings were not saved" />
      <WriteGuard>
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Saving…" : "Save settings"}
        </button>
      </WriteGuard>
    </form>
  );
}
