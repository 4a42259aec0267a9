// What the lookup console shows for one principal: who they are, each consent with the evidence
// Guard keeps for it (audit hash, key version, place on the organisation's audit chain), the consent
// events in the order they happened, and their nomination.
import type { Schemas } from "../../api/client.js";
import { CopyButton, DataTable, DateTime, EmptyState, type Column } from "../../ui/index.js";

type Lookup = Schemas["PrincipalLookup"];
type Consent = Lookup["consents"][number];
type ConsentEvent = Lookup["events"][number];

const SOURCE_LABELS: Record<string, string> = {
  brokered: "Brokered (your app, for a signed-in user)",
  direct: "Direct (your server)",
  anonymous: "Anonymous (banner, before sign-in)",
  linked: "Linked (anonymous consent tied to the account)",
  offline: "Offline (signed on an enrolled device)",
  offline_link: "Offline (QR consent link)",
  offline_pos: "Offline (confirmed at a point of sale)",
  offline_ivr: "Offline (IVR call)",
};

const sourceLabel = (source: string) => SOURCE_LABELS[source] ?? source;

export function PrincipalEvidence({ lookup }: { lookup: Lookup }) {
  const { principal } = lookup;
  return (
    <div className="lookup-result">
      <section className="lookup-card" aria-labelledby="principal-heading">
        <h2 id="principal-heading">Principal</h2>
        <dl className="lookup-facts">
          <dt>Email</dt>
          <dd>{principal.email ?? "None given"}</dd>
          <dt>External id</dt>
          <dd>{principal.externalId ?? "None"}</dd>
          <dt>Guard id</dt>
          <dd>
            <code>{principal.principalId}</code>
          </dd>
          <dt>Known since</dt>
          <dd>
            <DateTime value={principal.createdAt} />
          </dd>
        </dl>
      </section>

      <section aria-labelledby="consents-heading">
        <h2 id="consents-heading">Consents ({lookup.consents.length})</h2>
        <DataTable
          caption="Consents, newest first, with their evidence"
          captionHidden
          columns={CONSENT_COLUMNS}
          rows={lookup.consents}
          rowKey={(row) => row.consentId}
          empty={<EmptyState title="No consents">This principal has given no consent yet.</EmptyState>}
        />
      </section>

      <section aria-labelledby="events-heading">
        <h2 id="events-heading">Events</h2>
        <EventTimeline events={lookup.events} />
      </section>

      <section className="lookup-card" aria-labelledby="nomination-heading">
        <h2 id="nomination-heading">Nomination</h2>
        {lookup.nomination ? (
          <dl className="lookup-facts">
            <dt>Nominee</dt>
            <dd>{lookup.nomination.nomineeName}</dd>
            <dt>Contact</dt>
            <dd>{lookup.nomination.nomineeContact}</dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={lookup.nomination.status} />
            </dd>
          </dl>
        ) : (
          <p>No nomination: this principal has not nominated anyone to act for them.</p>
        )}
      </section>
    </div>
  );
}

function StatusBadge({ status }: { status: string }) {
  return <span className={`lookup-status lookup-status-${status}`}>{status}</span>;
}

/** An audit hash: monospace, wrapped anywhere, with a copy button labelled for its row. */
function AuditHash({ hash, of }: { hash: string; of: string }) {
  return (
    <span className="lookup-hash">
      <code data-audit-hash={hash}>{hash}</code>
      <CopyButton text={hash} label={`Copy audit hash of ${of}`} />
    </span>
  );
}

const CONSENT_COLUMNS: Column<Consent>[] = [
  { key: "purpose", header: "Purpose", rowHeader: true, render: (c) => c.purpose },
  {
    key: "notice",
    header: "Notice",
    render: (c) => (
      <>
        <code>{c.noticeId}</code> <span className="lookup-muted">version {c.noticeVersion}</span>
      </>
    ),
  },
  { key: "source", header: "Source", render: (c) => sourceLabel(c.source) },
  { key: "status", header: "Status", render: (c) => <StatusBadge status={c.status} /> },
  { key: "given", header: "Given", render: (c) => <DateTime value={c.givenAt} /> },
  {
    key: "withdrawn",
    header: "Withdrawn",
    render: (c) =>
      c.withdrawnAt === null ? (
        "—"
      ) : (
        <>
          <DateTime value={c.withdrawnAt} />
          <br />
          <span className="lookup-muted">Reason: {c.withdrawalReason ?? "none given"}</span>
        </>
      ),
  },
  { key: "hash", header: "Audit hash", render: (c) => <AuditHash hash={c.auditHash} of={c.purpose} /> },
  { key: "key", header: "Key version", align: "end", render: (c) => c.auditKeyVersion },
  {
    key: "chain",
    header: "Chain position",
    align: "end",
    render: (c) => (c.chainSeq === null ? "None recorded" : `#${c.chainSeq}`),
  },
];

const EVENT_LABELS: Record<string, string> = {
  "consent.given": "Consent given",
  "consent.withdrawn": "Consent withdrawn",
};

function EventTimeline({ events }: { events: ConsentEvent[] }) {
  if (events.length === 0)
    return (
      <EmptyState title="No consent events">Guard recorded no consent event for this principal.</EmptyState>
    );
  return (
    <ol className="lookup-timeline" aria-label="Consent events, oldest first">
      {events.map((event) => (
        <li key={event.eventId} className="lookup-event">
          <p className="lookup-event-head">
            <strong>{EVENT_LABELS[event.eventType] ?? event.eventType}</strong>: {event.purpose}{" "}
            <span className="lookup-muted">
              · <DateTime value={event.occurredAt} /> · {sourceLabel(event.source)} ·{" "}
              {event.chainSeq === null ? "missing from the audit chain" : `chain #${event.chainSeq}`}
            </span>
          </p>
          {event.reason ? <p className="lookup-event-reason">Reason: {event.reason}</p> : null}
          <p className="lookup-event-hash">
            Audit hash (key version {event.auditKeyVersion}):{" "}
            <AuditHash hash={event.auditHash} of={`event ${event.eventType} ${event.purpose}`} />
          </p>
        </li>
      ))}
    </ol>
  );
}
