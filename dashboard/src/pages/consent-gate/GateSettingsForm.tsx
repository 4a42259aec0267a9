// The two settings that define a bypass alert, saved through the organisation settings route (one
// PATCH of `consentGate` with what changed). The window is entered in minutes, hours or days.
import { useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import {
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
  describeDuration,
  dottedFieldError,
  durationMs,
  DurationInput,
  toDuration,
  type Duration,
} from "../../ui/DurationInput.js";

type Settings = Schemas["OrganizationSettings"];

const WINDOW = "consentGate.windowMs";
const THRESHOLD = "consentGate.denyThreshold";

export function GateSettingsForm({ onSaved }: { onSaved: () => void }) {
  const settings = useApi(() => ok(api.GET("/api/v1/staff/organization/settings")), []);
  // Kept here, not in the editor: a save remounts the editor with the new values.
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <section className="gate-section" aria-labelledby="gate-settings-heading">
      <h2 id="gate-settings-heading">Alert settings</h2>
      {settings.loading && !settings.data ? <Loading label="Loading settings…" /> : null}
      <ErrorNotice error={settings.error} onRetry={settings.reload} />
      {settings.data ? (
        <GateSettingsEditor
          key={settings.data.updatedAt ?? "defaults"}
          current={settings.data}
          onSaved={(result) => {
            setSaved(result?.message ?? null);
            if (result) {
              // The PATCH answers the settings now in force: the editor is remounted with them in
              // the same render as the notice, so no save is reported beside the values before it.
              settings.replace(result.now);
              onSaved();
            }
          }}
        />
      ) : null}
      {saved ? <Notice tone="success">{saved}</Notice> : null}
    </section>
  );
}

function GateSettingsEditor({
  current,
  onSaved,
}: {
  current: Settings;
  /** A save's message and the settings now in force (null clears the message). */
  onSaved: (saved: { message: string; now: Settings } | null) => void;
}) {
  const canWrite = useCanWrite();
  const [windowSpan, setWindowSpan] = useState<Duration>(() => toDuration(current.consentGate.windowMs));
  const [threshold, setThreshold] = useState(String(current.consentGate.denyThreshold));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    onSaved(null);
    const change: { windowMs?: number; denyThreshold?: number } = {};
    const windowMs = durationMs(windowSpan);
    const denyThreshold = Number(threshold);
    if (windowMs !== current.consentGate.windowMs) change.windowMs = windowMs;
    if (denyThreshold !== current.consentGate.denyThreshold) change.denyThreshold = denyThreshold;
    if (Object.keys(change).length === 0) {
      setError(new Error("Nothing to save: these are the settings in force."));
      return;
    }
    setBusy(true);
    try {
      const next = await ok(
        api.PATCH("/api/v1/staff/organization/settings", { body: { consentGate: change } }),
      );
      onSaved({
        message: `Saved. An alert is now ${next.consentGate.denyThreshold} or more denies within ${describeDuration(next.consentGate.windowMs)}.`,
        now: next,
      });
    } catch (caught) {
      setError(dottedFieldError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="gate-settings" onSubmit={(event) => void submit(event)} noValidate>
      <Field
        label="Alert window"
        name={WINDOW}
        error={error}
        hint="Denies of one consent count toward an alert while they are this recent (1 second to 30 days)."
      >
        <DurationInput
          value={windowSpan}
          onChange={setWindowSpan}
          disabled={!canWrite}
          unitLabel="Alert window unit"
        />
      </Field>
      <Field
        label="Deny threshold"
        name={THRESHOLD}
        error={error}
        hint="How many denies of one consent inside the window make an alert (1 or more)."
      >
        <input
          type="number"
          inputMode="numeric"
          min="1"
          step="1"
          required
          value={threshold}
          disabled={!canWrite}
          onChange={(event) => setThreshold(event.target.value)}
        />
      </Field>
      <ErrorNotice error={unclaimedError(error, [WINDOW, THRESHOLD])} title="The settings were not saved" />
      <WriteGuard>
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Saving…" : "Save alert settings"}
        </button>
      </WriteGuard>
    </form>
  );
}
