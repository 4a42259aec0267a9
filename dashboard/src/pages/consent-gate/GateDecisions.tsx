// The gate's decision log, newest first, one page at a time (the contract's cursor paging): "Older"
// follows nextCursor, "Newer" goes back through the cursors already visited.
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import {
  DataTable,
  DateTime,
  EmptyState,
  ErrorNotice,
  Loading,
  useApi,
  type Column,
} from "../../ui/index.js";

type Decision = Schemas["ConsentGateDecision"];

export const DECISIONS_PAGE_SIZE = 25;

const REASONS: Record<Decision["reason"], string> = {
  consent_active: "Consent is active",
  consent_withdrawn: "Consent was withdrawn",
};

const COLUMNS: Column<Decision>[] = [
  { key: "at", header: "Decided", rowHeader: true, render: (d) => <DateTime value={d.decidedAt} /> },
  {
    key: "decision",
    header: "Decision",
    render: (d) => <span className={`gate-decision gate-decision-${d.decision}`}>{d.decision}</span>,
  },
  { key: "reason", header: "Why", render: (d) => REASONS[d.reason] ?? d.reason },
  { key: "consent", header: "Consent", render: (d) => <code>{d.consentId}</code> },
  { key: "key", header: "Asked by API key", render: (d) => <code>{d.apiKeyId}</code> },
];

export function GateDecisions() {
  // cursors[i] is the cursor of page i (undefined for the newest page).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useApi(
    () =>
      ok(
        api.GET("/api/v1/consent/gate/decisions", {
          params: { query: { limit: DECISIONS_PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
        }),
      ),
    [cursor],
  );
  return (
    <section className="gate-section" aria-labelledby="decisions-heading">
      <h2 id="decisions-heading">Recent decisions</h2>
      {page.loading && !page.data ? <Loading label="Loading decisions…" /> : null}
      <ErrorNotice error={page.error} onRetry={page.reload} />
      {page.data ? (
        <>
          <DataTable
            caption={`Gate decisions, newest first (page ${cursors.length})`}
            captionHidden
            columns={COLUMNS}
            rows={page.data.decisions}
            rowKey={(d) => d.decisionId}
            empty={
              <EmptyState title="No decisions yet">
                Decisions appear here when your services call <code>POST /api/v1/consent/verify</code> (and
                decision recording is on in Organisation → Capabilities).
              </EmptyState>
            }
          />
          <nav className="gate-paging" aria-label="Decision pages">
            <button
              type="button"
              className="button"
              disabled={cursors.length === 1 || page.loading}
              onClick={() => setCursors((list) => list.slice(0, -1))}
            >
              Newer
            </button>
            <span>Page {cursors.length}</span>
            <button
              type="button"
              className="button"
              disabled={!page.data.nextCursor || page.loading}
              onClick={() => {
                const next = page.data?.nextCursor;
                if (next) setCursors((list) => [...list, next]);
              }}
            >
              Older
            </button>
            <button type="button" className="button" onClick={page.reload} disabled={page.loading}>
              Refresh
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}
