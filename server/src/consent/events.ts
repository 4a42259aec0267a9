// Consent history: every given / withdrawn / linked event is one append-only consent_events row,
// carrying the contract audit hash of the consent as it stood after the event, and one entry in
// the organisation's audit chain; given and withdrawn also go to the webhook outbox. All three are
// written through the caller's transaction, together with the change itself.
import { appendAuditEntry } from "../audit/chain.js";
import { checkAuditHash, type AuditKeys } from "../audit/keys.js";
import type { Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { newId } from "../lib/ids.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { auditInputOf, type Consent, type ConsentSource, type WithdrawalReason } from "./model.js";

export type ConsentEventType = "given" | "withdrawn" | "linked";

interface ConsentEvent {
  eventId: string;
  eventType: ConsentEventType;
  occurredAt: number;
  consentId: string;
  principalId: string | null;
  anonymousId: string | null;
  noticeId: string;
  noticeVersion: number;
  purpose: string;
  dataTypes: string[];
  givenAt: number;
  source: ConsentSource;
  reason: WithdrawalReason | null;
  auditHash: string;
  auditKeyVersion: number;
}

/** The audit-chain payload of a consent event: the whole event, so the chain pins every column. */
function chainPayload(event: ConsentEvent): Record<string, unknown> {
  return { ...event };
}

/** Who the consent belongs to, as webhook receivers see it. */
function principalReference(consent: Consent) {
  return consent.principalId === null
    ? { anonymousId: consent.anonymousId }
    : { principalId: consent.principalId, externalId: consent.externalId };
}

/**
 * Records that `consent` (its state after the event) was given, withdrawn or linked at `now`.
 * The event's audit hash is the consent's current one; the caller computed it when the change
 * touched a hashed field (given, linked) and left it as it was otherwise (withdrawn).
 */
export async function recordConsentEvent(
  tx: Queryable,
  consent: Consent,
  eventType: ConsentEventType,
  now: number,
): Promise<void> {
  const event: ConsentEvent = {
    eventId: newId("cev"),
    eventType,
    occurredAt: now,
    consentId: consent.consentId,
    principalId: consent.principalId,
    anonymousId: consent.anonymousId,
    noticeId: consent.noticeId,
    noticeVersion: consent.noticeVersion,
    purpose: consent.purpose,
    dataTypes: consent.dataTypes,
    givenAt: consent.givenAt,
    source: consent.source,
    reason: eventType === "withdrawn" ? consent.withdrawalReason : null,
    auditHash: consent.auditHash,
    auditKeyVersion: consent.auditKeyVersion,
  };
  const { seq } = await appendAuditEntry(
    tx,
    {
      organizationId: consent.organizationId,
      entryType: `consent.${eventType}`,
      subjectId: consent.consentId,
      payload: chainPayload(event),
    },
    now,
  );
  await tx.query(
    `INSERT INTO consent_events
       (organization_id, event_id, consent_id, event_type, occurred_at, principal_id, anonymous_id,
        notice_id, notice_version, purpose, data_types, given_at, source, reason, audit_hash,
        audit_key_version, audit_seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $16, $17)`,
    [
      consent.organizationId,
      event.eventId,
      event.consentId,
      eventType,
      now,
      event.principalId,
      event.anonymousId,
      event.noticeId,
      event.noticeVersion,
      event.purpose,
      JSON.stringify(event.dataTypes),
      event.givenAt,
      event.source,
      event.reason,
      event.auditHash,
      event.auditKeyVersion,
      seq,
    ],
  );
  if (eventType === "linked") return;
  const payload: Record<string, unknown> = {
    consentId: consent.consentId,
    noticeId: consent.noticeId,
    noticeVersion: consent.noticeVersion,
    purpose: consent.purpose,
    dataTypes: consent.dataTypes,
    principal: principalReference(consent),
    source: consent.source,
    givenAt: consent.givenAt,
  };
  if (eventType === "withdrawn") {
    payload.withdrawnAt = consent.withdrawnAt;
    payload.reason = consent.withdrawalReason;
  }
  await enqueueEvent(
    tx,
    { organizationId: consent.organizationId, eventType: `consent.${eventType}`, payload },
    now,
  );
}

// ----- Verification (guard audit verify) -----------------------------------------------------------

export interface EvidenceProblem {
  /** Audit-chain position the problem is attached to; null when none can be named. */
  seq: number | null;
  subjectId: string;
  reason: string;
}

type EventRow = {
  event_id: string;
  consent_id: string;
  event_type: ConsentEventType;
  occurred_at: number;
  principal_id: string | null;
  anonymous_id: string | null;
  notice_id: string;
  notice_version: number;
  purpose: string;
  data_types: string[];
  given_at: number;
  source: ConsentSource;
  reason: WithdrawalReason | null;
  audit_hash: string;
  audit_key_version: number;
  audit_seq: number;
};

const EVENT_COLUMNS = `event_id, consent_id, event_type, occurred_at, principal_id, anonymous_id, notice_id,
  notice_version, purpose, data_types, given_at, source, reason, audit_hash, audit_key_version, audit_seq`;

const eventOf = (row: EventRow): ConsentEvent => ({
  eventId: row.event_id,
  eventType: row.event_type,
  occurredAt: row.occurred_at,
  consentId: row.consent_id,
  principalId: row.principal_id,
  anonymousId: row.anonymous_id,
  noticeId: row.notice_id,
  noticeVersion: row.notice_version,
  purpose: row.purpose,
  dataTypes: row.data_types,
  givenAt: row.given_at,
  source: row.source,
  reason: row.reason,
  auditHash: row.audit_hash,
  auditKeyVersion: row.audit_key_version,
});

export interface ChainEntryView {
  seq: number;
  entryType: string;
  subjectId: string;
  payload: string;
}

/**
 * Checks the consent events attached to a run of chain entries: each consent.* entry must have its
 * event row, the row must say exactly what the entry's payload says, and the row's audit hash must
 * recompute under the key of its version.
 */
export async function checkConsentEventsForEntries(
  db: Queryable,
  organizationId: string,
  entries: readonly ChainEntryView[],
  keys: AuditKeys,
): Promise<{ problems: EvidenceProblem[]; eventsChecked: number }> {
  const consentEntries = entries.filter((e) => e.entryType.startsWith("consent."));
  if (consentEntries.length === 0) return { problems: [], eventsChecked: 0 };
  const rows = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM consent_events WHERE organization_id = $1 AND audit_seq = ANY($2::bigint[])`,
    [organizationId, consentEntries.map((e) => e.seq)],
  );
  const bySeq = new Map(rows.map((r) => [r.audit_seq, r]));
  const problems: EvidenceProblem[] = [];
  for (const entry of consentEntries) {
    const row = bySeq.get(entry.seq);
    const problem = (reason: string) => problems.push({ seq: entry.seq, subjectId: entry.subjectId, reason });
    if (!row) {
      problem("the consent event recorded in the chain is missing from consent_events");
      continue;
    }
    const event = eventOf(row);
    if (`consent.${event.eventType}` !== entry.entryType || event.consentId !== entry.subjectId) {
      problem("the consent event does not match its chain entry (type or consent)");
      continue;
    }
    if (canonicalJson(chainPayload(event)) !== entry.payload) {
      problem("the consent event differs from what its chain entry recorded");
      continue;
    }
    const hashProblem = checkAuditHash(keys, auditInputOf({ organizationId, ...event }), event);
    if (hashProblem) problem(`consent event ${event.eventId}: ${hashProblem}`);
  }
  return { problems, eventsChecked: rows.length };
}

/** Consent events that point at no chain entry (inserted around the chain, or their entry deleted). */
export async function findUnchainedConsentEvents(
  db: Queryable,
  organizationId: string,
): Promise<EvidenceProblem[]> {
  const rows = await db.query<{ consent_id: string; audit_seq: number }>(
    `SELECT e.consent_id, e.audit_seq FROM consent_events e
      WHERE e.organization_id = $1
        AND NOT EXISTS (SELECT 1 FROM audit_entries a
                         WHERE a.organization_id = e.organization_id AND a.seq = e.audit_seq
                           AND a.subject_id = e.consent_id)
      ORDER BY e.audit_seq LIMIT 1`,
    [organizationId],
  );
  return rows.map((r) => ({
    seq: r.audit_seq,
    subjectId: r.consent_id,
    reason: "a consent event has no matching entry in the audit chain",
  }));
}

type StateRow = {
  consent_id: string;
  principal_id: string | null;
  anonymous_id: string | null;
  notice_id: string;
  notice_version: number;
  purpose: string;
  data_types: string[];
  source: ConsentSource;
  given_at: number;
  withdrawn_at: number | null;
  withdrawal_reason: WithdrawalReason | null;
  audit_hash: string;
  audit_key_version: number;
};

/**
 * Checks every consent row against its history, a page at a time: replaying its events in chain
 * order must give exactly the row as stored (who holds it, what it covers, whether and when it was
 * withdrawn), and the row's audit hash must recompute.
 */
export async function checkConsentRows(
  db: Queryable,
  organizationId: string,
  keys: AuditKeys,
  pageSize = 500,
): Promise<{ problems: EvidenceProblem[]; consentsChecked: number }> {
  const problems: EvidenceProblem[] = [];
  let consentsChecked = 0;
  let after = "";
  for (;;) {
    const consents = await db.query<StateRow>(
      `SELECT consent_id, principal_id, anonymous_id, notice_id, notice_version, purpose, data_types, source,
              given_at, withdrawn_at, withdrawal_reason, audit_hash, audit_key_version
         FROM consents WHERE organization_id = $1 AND consent_id > $2 ORDER BY consent_id LIMIT $3`,
      [organizationId, after, pageSize],
    );
    if (consents.length === 0) break;
    after = consents[consents.length - 1]!.consent_id;
    consentsChecked += consents.length;
    const events = await db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM consent_events
        WHERE organization_id = $1 AND consent_id = ANY($2::text[]) ORDER BY audit_seq`,
      [organizationId, consents.map((c) => c.consent_id)],
    );
    const history = new Map<string, ConsentEvent[]>();
    const lastSeq = new Map<string, number>();
    for (const row of events) {
      const list = history.get(row.consent_id) ?? [];
      list.push(eventOf(row));
      history.set(row.consent_id, list);
      lastSeq.set(row.consent_id, row.audit_seq);
    }
    for (const row of consents) {
      const trail = history.get(row.consent_id) ?? [];
      const last = trail[trail.length - 1];
      const problem = (reason: string) =>
        problems.push({ seq: lastSeq.get(row.consent_id) ?? null, subjectId: row.consent_id, reason });
      if (trail[0]?.eventType !== "given") {
        problem("the consent has no `given` event as the start of its history");
        continue;
      }
      const withdrawal = trail.find((e) => e.eventType === "withdrawn");
      const expected = {
        principal_id: last!.principalId,
        anonymous_id: last!.anonymousId,
        notice_id: last!.noticeId,
        notice_version: last!.noticeVersion,
        purpose: last!.purpose,
        data_types: last!.dataTypes,
        source: last!.source,
        given_at: last!.givenAt,
        withdrawn_at: withdrawal?.occurredAt ?? null,
        withdrawal_reason: withdrawal?.reason ?? null,
        audit_hash: last!.auditHash,
        audit_key_version: last!.auditKeyVersion,
      };
      const { consent_id: _id, ...actual } = row;
      if (canonicalJson(actual) !== canonicalJson(expected)) {
        problem("the consent record differs from the state its recorded history gives");
        continue;
      }
      const hashProblem = checkAuditHash(
        keys,
        auditInputOf({
          organizationId,
          noticeId: row.notice_id,
          noticeVersion: row.notice_version,
          purpose: row.purpose,
          dataTypes: row.data_types,
          givenAt: row.given_at,
          source: row.source,
        }),
        { auditHash: row.audit_hash, auditKeyVersion: row.audit_key_version },
      );
      if (hashProblem) problem(hashProblem);
    }
  }
  return { problems, consentsChecked };
}
