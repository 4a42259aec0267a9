// The organisation's published response periods (DPDP Rules 2025, rule 14(3)): days from filing to a
// DSR's or grievance's deadline. A change applies to items filed afterwards only, which the panel says.
import { useState, type FormEvent } from "react";
import { api, ok } from "../../api/client.js";
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

const FIELDS = ["dsrResponseDays", "grievanceResponseDays"] as const;

export function SettingsPanel() {
  const settings = useApi(() => ok(api.GET("/api/v1/staff/rights/settings")), []);
  const canWrite = useCanWrite();
  const [draft, setDraft] = useState<Record<(typeof FIELDS)[number], string> | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  const data = settings.data;
  const values = draft ?? {
    dsrResponseDays: data ? String(data.dsrResponseDays) : "",
    grievanceResponseDays: data ? String(data.grievanceResponseDays) : "",
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      // Sent as typed: the API checks the range and names the field it refuses.
      await api.PUT("/api/v1/staff/rights/settings", {
        body: {
          dsrResponseDays: Number(values.dsrResponseDays),
          grievanceResponseDays: Number(values.grievanceResponseDays),
        },
      });
      setDraft(null);
      setSaved(true);
      settings.reload();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <details className="rights-settings">
      <summary>Response periods</summary>
      {settings.loading && !data ? <Loading /> : null}
      <ErrorNotice error={settings.error} onRetry={settings.reload} />
      {data ? (
        <form onSubmit={(event) => void save(event)} noValidate>
          <p className="field-hint">
            Days from filing to the deadline, at most {data.maxResponseDays} (rule 14(3)). A change applies to
            requests filed afterwards; filed requests keep their deadline. Last changed:{" "}
            {data.updatedAt === null ? "never (the defaults apply)" : <DateTime value={data.updatedAt} />}.
          </p>
          <div className="rights-settings-fields">
            <Field label="DSR response days" name="dsrResponseDays" error={error}>
              <input
                type="number"
                inputMode="numeric"
                min={1}
                max={data.maxResponseDays}
                value={values.dsrResponseDays}
                disabled={!canWrite}
                onChange={(event) => setDraft({ ...values, dsrResponseDays: event.target.value })}
              />
            </Field>
            <Field label="Grievance response days" name="grievanceResponseDays" error={error}>
              <input
                type="number"
                inputMode="numeric"
                min={1}
                max={data.maxResponseDays}
                value={values.grievanceResponseDays}
                disabled={!canWrite}
                onChange={(event) => setDraft({ ...values, grievanceResponseDays: event.target.value })}
              />
            </Field>
          </div>
          <ErrorNotice error={unclaimedError(error, FIELDS)} title="The periods were not saved" />
          {saved ? <Notice tone="success">Response periods saved.</Notice> : null}
          <WriteGuard>
            <button type="submit" className="button button-primary" disabled={busy || draft === null}>
              {busy ? "Saving…" : "Save periods"}
            </button>
          </WriteGuard>
        </form>
      ) : null}
    </details>
  );
}
