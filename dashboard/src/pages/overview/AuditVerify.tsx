// `guard audit verify` as a button: walks the organisation's audit chain on the server (a read; a
// POST only because it is an expensive action, so it carries CSRF like any other) and shows the
// report: intact, or the first broken link and how many problems were found, with the head of the
// chain either way (worth recording elsewhere: a rewritten chain would have another head).
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { CopyButton, ErrorNotice, formatDate } from "../../ui/index.js";

type Report = Schemas["AuditVerification"];

export function AuditVerify() {
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<{ report: Report; at: number } | undefined>();
  const [error, setError] = useState<unknown>();

  const verify = async () => {
    setRunning(true);
    setError(undefined);
    try {
      const report = await ok(api.POST("/api/v1/staff/audit/verify"));
      setResult({ report, at: Date.now() });
    } catch (caught) {
      setResult(undefined);
      setError(caught);
    } finally {
      setRunning(false);
    }
  };

  return (
    <section className="overview-card" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit chain</h2>
      <p className="overview-muted">
        Checks every consent, event and evidenced record against the organisation&apos;s hash chain, as{" "}
        <code>guard audit verify</code> does.
      </p>
      <button
        type="button"
        className="button button-primary"
        onClick={() => void verify()}
        disabled={running}
        aria-busy={running}
      >
        {running ? "Verifying…" : "Verify audit chain"}
      </button>
      <div aria-live="polite">{result ? <ReportView report={result.report} at={result.at} /> : null}</div>
      <ErrorNotice
        error={error}
        title="The audit chain could not be verified"
        onRetry={() => void verify()}
      />
    </section>
  );
}

function ReportView({ report, at }: { report: Report; at: number }) {
  const broken = report.firstBrokenLink;
  return (
    <div className={report.intact ? "audit-result audit-intact" : "audit-result audit-broken"}>
      <p className="audit-verdict">
        {report.intact
          ? "✓ Intact: every record matches the chain."
          : `✗ Broken: ${report.problemCount} ${report.problemCount === 1 ? "problem" : "problems"} found.`}
      </p>
      {broken ? (
        <p>
          First broken link: <code>{broken.table}</code> record <code>{broken.recordId}</code>
          {broken.seq !== null ? <> at seq {broken.seq}</> : null} — {broken.reason}
        </p>
      ) : null}
      <dl className="audit-facts">
        <dt>Chain entries</dt>
        <dd>{report.entries}</dd>
        <dt>Consents checked</dt>
        <dd>{report.consentsChecked}</dd>
        <dt>Consent events checked</dt>
        <dd>{report.consentEventsChecked}</dd>
        <dt>Head seq</dt>
        <dd>{report.headSeq}</dd>
        <dt>Head hash</dt>
        <dd>
          <code className="audit-hash">{report.headHash || "—"}</code>
          {report.headHash ? <CopyButton text={report.headHash} label="Copy head hash" /> : null}
        </dd>
        <dt>Verified</dt>
        <dd>{formatDate(at)}</dd>
      </dl>
    </div>
  );
}
