// Export: consent evidence as CSV for a range of days. The server streams the file; this page
// shows rows received against the count the server announced, can cancel, and offers the file
// as a download when it is complete, warning when the stream ended early. Any staff role (a read).
import { useState, type FormEvent } from "react";
import { ApiError } from "../../api/errors.js";
import { ErrorNotice, Field, formatDate, Notice, Page, unclaimedError } from "../../ui/index.js";
import { dateInputValue, exportRange, formatBytes } from "./csv-stream.js";
import { useCsvExport, type ExportState } from "./useCsvExport.js";
import "./export.css";

const FIELDS = ["from", "to"] as const;

/** A check the form makes before asking Guard, in the API's error shape so it shows by its field. */
const inputError = (field: string, message: string) =>
  new ApiError({ status: 400, code: "VALIDATION_ERROR", message, field });

export default function ExportPage() {
  const today = new Date();
  const [fromDate, setFromDate] = useState(() =>
    dateInputValue(new Date(today.getFullYear(), today.getMonth(), today.getDate() - 29)),
  );
  const [toDate, setToDate] = useState(() => dateInputValue(today));
  const [formError, setFormError] = useState<unknown>();
  const { state, start, cancel } = useCsvExport();
  const running = state.phase === "running";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { from, to } = exportRange(fromDate, toDate);
    if (from === undefined) return setFormError(inputError("from", "Choose the first day to export."));
    if (to === undefined) return setFormError(inputError("to", "Choose the last day to export."));
    setFormError(undefined);
    // An inverted range goes to Guard too: its message names the field (`to must be after from`).
    void start(from, to);
  };

  // The API's own 400 names `from` or `to`: shown next to that input like the form's own checks.
  const fieldErr = formError ?? (state.phase === "failed" ? state.error : undefined);

  return (
    <Page
      title="Export"
      intro="Consent evidence as CSV: every consent given in the range, with its audit hash and key version, one row each."
    >
      <form className="export-form" onSubmit={submit} noValidate>
        <Field label="From (first day)" name="from" error={fieldErr}>
          <input
            type="date"
            value={fromDate}
            onChange={(e) => setFromDate(e.target.value)}
            disabled={running}
          />
        </Field>
        <Field label="To (last day, included)" name="to" error={fieldErr}>
          <input type="date" value={toDate} onChange={(e) => setToDate(e.target.value)} disabled={running} />
        </Field>
        <div className="export-actions">
          <button type="submit" className="button button-primary" disabled={running}>
            Export CSV
          </button>
          {running ? (
            <button type="button" className="button" onClick={cancel}>
              Cancel export
            </button>
          ) : null}
        </div>
      </form>
      <p className="export-note">
        Days are your time zone&apos;s. Consents given after the export starts may be left out of it.
      </p>
      <Progress state={state} />
      <ErrorNotice
        error={unclaimedError(fieldErr, FIELDS)}
        title={
          state.phase === "failed" && state.rows > 0
            ? `The export failed after ${rowsText(state.rows)}; no file was kept`
            : "The export failed"
        }
      />
    </Page>
  );
}

function Progress({ state }: { state: ExportState }) {
  if (state.phase === "idle") return null;
  if (state.phase === "cancelled")
    return <Notice tone="warning">Export cancelled after {rowsText(state.rows)}; no file was kept.</Notice>;
  if (state.phase === "failed") return null;
  if (state.phase === "running") {
    const { rows, expected, bytes } = state;
    return (
      <div className="export-progress">
        <label htmlFor="export-progress">Exporting…</label>
        <progress
          id="export-progress"
          max={expected && expected > 0 ? expected : undefined}
          value={expected && expected > 0 ? Math.min(rows, expected) : undefined}
        />
        <p role="status" aria-live="polite">
          {expected === undefined
            ? `${rowsText(rows)} received`
            : `${rows} of ${rowsText(expected)} received`}{" "}
          ({formatBytes(bytes)})
        </p>
      </div>
    );
  }
  const { rows, expected, bytes, url, fileName, finishedAt, truncated } = state;
  return (
    <div className="export-progress">
      <label htmlFor="export-progress">Export complete</label>
      <progress id="export-progress" max={Math.max(1, rows)} value={Math.max(1, rows)} />
      {truncated ? (
        <Notice tone="warning">
          The file may be incomplete: {rowsText(rows)} received
          {expected !== undefined ? ` of ${expected} announced` : ""} and the stream ended early. Export again
          before relying on it.
        </Notice>
      ) : (
        <Notice tone="success">
          {rowsText(rows)} exported ({formatBytes(bytes)}) at {formatDate(finishedAt)}.
        </Notice>
      )}
      <a className="button" href={url} download={fileName}>
        Download {fileName}
      </a>
    </div>
  );
}

const rowsText = (n: number) => `${n.toLocaleString()} ${n === 1 ? "row" : "rows"}`;
