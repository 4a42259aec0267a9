// The answer recorded on a DSR (contract DsrRequest.responsePayload): a statutory denial is shown
// as its basis; anything else (the generated summary, an erasure report, staff's answer) as text or
// as readable JSON, because its shape depends on the request type.
export function ResponsePayload({ value }: { value: unknown }) {
  if (value === undefined || value === null) return <p>No answer recorded yet.</p>;
  if (typeof value === "string") return <p className="rights-text">{value}</p>;
  const denial = (value as { statutoryDenial?: { statute?: string; citation?: string } }).statutoryDenial;
  if (denial) {
    return (
      <dl className="rights-facts">
        <dt>Denied under</dt>
        <dd>{denial.statute}</dd>
        <dt>Citation</dt>
        <dd className="rights-text">{denial.citation}</dd>
      </dl>
    );
  }
  return (
    <pre className="rights-json" tabIndex={0} aria-label="Answer recorded (JSON)">
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}
