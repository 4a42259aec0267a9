// Consent history: every given / withdrawn / linked event is one append-only consent_events row,
// carrying the contract audit hash of the consent as it stood after the event, and one entry in
// the organisation's audit chain; given and withdrawn also go to the webhook outbox. All three are
// written through the caller's transaction, together with the change itself.
import { appendAuditEntries, appendAuditEntry } from "../audit/chain.js";
import { checkAuditHash, type AuditKeys } from "../audit/keys.js";
import type { AuditProblem } from "../audit/findings.js";
import { chainEntriesAtRefs } from "../audit/store.js";
import type { Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { newId } from "../lib/ids.js";
import { enqueueEvent, enqueueEvents } from "../webhooks/outbox.js";
import { auditInputOf, type Consent } from "./model.js";
import {
  consentEventsAtRefs,
  consentEventsOf,
  insertConsentEvent,
  insertConsentEvents,
  pageConsentEventRefs,
  pageConsents,
  type ConsentEvent,
  type ConsentEventType,
} from "./store.js";

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
  const event = eventOf(consent, eventType, now);
  const { entryRef } = await appendAuditEntry(
    tx,
    {
      organizationId: consent.organizationId,
      entryType: `consent.${eventType}`,
      subjectId: consent.consentId,
      payload: chainPayload(event),
    },
    now,
  );
  await insertConsentEvent(tx, consent.organizationId, event, entryRef);
  if (eventType === "linked") return;
  await enqueueEvent(
    tx,
    {
      organizationId: consent.organizationId,
      eventType: `consent.${eventType}`,
      payload: webhookPayloadOf(consent, eventType),
    },
    now,
  );
}

/**
 * recordConsentEvent for several consents of one organisation and one change (new consents given,
 * consents withdrawn), in a fixed number of statements: the same events, chain entries and webhook
 * events, written as batches.
 */
export async function recordConsentEvents(
  tx: Queryable,
  organizationId: string,
  consents: readonly Consent[],
  eventType: Exclude<ConsentEventType, "linked">,
  now: number,
): Promise<void> {
  if (consents.length === 0) return;
  const events = consents.map((consent) => eventOf(consent, eventType, now));
  const entries = await appendAuditEntries(
    tx,
    organizationId,
    events.map((event) => ({
      entryType: `consent.${eventType}`,
      subjectId: event.consentId,
      payload: chainPayload(event),
    })),
    now,
  );
  await insertConsentEvents(
    tx,
    organizationId,
    events.map((event, i) => ({ event, auditRef: entries[i]!.entryRef })),
  );
  await enqueueEvents(
    tx,
    organizationId,
    consents.map((consent) => ({
      eventType: `consent.${eventType}`,
      payload: webhookPayloadOf(consent, eventType),
    })),
    now,
  );
}

/** The event row of a consent's change: the consent as it stands after it. */
function eventOf(consent: Consent, eventType: ConsentEventType, now: number): ConsentEvent {
  return {
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
}

/** The webhook payload of a given or withdrawn consent. */
function webhookPayloadOf(consent: Consent, eventType: ConsentEventType): Record<string, unknown> {
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
  return payload;
}

// ----- Verification (guard audit verify) -----------------------------------------------------------
// The checks report each problem as they find it (audit/findings.ts keeps a bounded sample), naming
// the table and row: consent_events by event id (the consent id when the row is missing), consents
// by consent id.

export interface ChainEntryView {
  seq: number;
  entryRef: number;
  entryType: string;
  subjectId: string;
  payload: string;
}

type Report = (problem: AuditProblem) => void;

/**
 * Checks the consent events attached to a run of chain entries: each consent.* entry must have its
 * event row, the row must say exactly what the entry's payload says, and the row's audit hash must
 * recompute under the key of its version. How many events it checked.
 */
export async function checkConsentEventsForEntries(
  db: Queryable,
  organizationId: string,
  entries: readonly ChainEntryView[],
  keys: AuditKeys,
  report: Report,
): Promise<number> {
  const consentEntries = entries.filter((e) => e.entryType.startsWith("consent."));
  if (consentEntries.length === 0) return 0;
  const events = await consentEventsAtRefs(
    db,
    organizationId,
    consentEntries.map((e) => e.entryRef),
  );
  const byRef = new Map(events.map((e) => [e.auditRef, e.event]));
  for (const entry of consentEntries) {
    const event = byRef.get(entry.entryRef);
    const problem = (reason: string) =>
      report({
        table: "consent_events",
        recordId: event?.eventId ?? entry.subjectId,
        seq: entry.seq,
        reason,
      });
    if (!event) {
      problem("the consent event recorded in the chain is missing from consent_events");
      continue;
    }
    if (`consent.${event.eventType}` !== entry.entryType || event.consentId !== entry.subjectId) {
      problem("the consent event does not match its chain entry (type or consent)");
      continue;
    }
    if (canonicalJson(chainPayload(event)) !== entry.payload) {
      problem("the consent event differs from what its chain entry recorded");
      continue;
    }
    const hashProblem = checkAuditHash(keys, auditInputOf({ organizationId, ...event }), event);
    if (hashProblem) problem(hashProblem);
  }
  return events.length;
}

/**
 * Every consent event that points at no chain entry about its consent (inserted around the chain,
 * or its entry deleted); checked a page of events at a time.
 */
export async function findUnchainedConsentEvents(
  db: Queryable,
  organizationId: string,
  report: Report,
  pageSize = 1000,
): Promise<void> {
  let after = "";
  for (;;) {
    const events = await pageConsentEventRefs(db, organizationId, after, pageSize);
    if (events.length === 0) return;
    const entries = await chainEntriesAtRefs(
      db,
      organizationId,
      events.map((e) => e.auditRef),
    );
    for (const unchained of events.filter((e) => entries.get(e.auditRef)?.subjectId !== e.consentId)) {
      report({
        table: "consent_events",
        recordId: unchained.eventId,
        seq: entries.get(unchained.auditRef)?.seq ?? null,
        reason: `the event of consent ${unchained.consentId} has no matching entry in the audit chain`,
      });
    }
    after = events[events.length - 1]!.eventId;
  }
}

/**
 * Checks every consent row against its history, a page at a time: replaying its events in chain
 * order must give exactly the row as stored (who holds it, what it covers, whether and when it was
 * withdrawn), and the row's audit hash must recompute. How many consents it checked.
 */
export async function checkConsentRows(
  db: Queryable,
  organizationId: string,
  keys: AuditKeys,
  report: Report,
  pageSize = 500,
): Promise<number> {
  let consentsChecked = 0;
  let after = "";
  for (;;) {
    const consents = await pageConsents(db, organizationId, after, pageSize);
    if (consents.length === 0) break;
    after = consents[consents.length - 1]!.consentId;
    consentsChecked += consents.length;
    const events = await consentEventsOf(
      db,
      organizationId,
      consents.map((c) => c.consentId),
    );
    const history = new Map<string, ConsentEvent[]>();
    const lastRef = new Map<string, number>();
    for (const { event, auditRef } of events) {
      const list = history.get(event.consentId) ?? [];
      list.push(event);
      history.set(event.consentId, list);
      lastRef.set(event.consentId, auditRef);
    }
    // Problems name the chain position of the consent's latest event.
    const positions = await chainEntriesAtRefs(db, organizationId, [...lastRef.values()]);
    const lastSeqOf = (consentId: string) => {
      const ref = lastRef.get(consentId);
      return ref === undefined ? null : (positions.get(ref)?.seq ?? null);
    };
    for (const consent of consents) {
      const trail = history.get(consent.consentId) ?? [];
      const last = trail[trail.length - 1];
      const problem = (reason: string) =>
        report({
          table: "consents",
          recordId: consent.consentId,
          seq: lastSeqOf(consent.consentId),
          reason,
        });
      if (trail[0]?.eventType !== "given") {
        problem("the consent has no `given` event as the start of its history");
        continue;
      }
      const withdrawal = trail.find((e) => e.eventType === "withdrawn");
      const expected = {
        principalId: last!.principalId,
        anonymousId: last!.anonymousId,
        noticeId: last!.noticeId,
        noticeVersion: last!.noticeVersion,
        purpose: last!.purpose,
        dataTypes: last!.dataTypes,
        source: last!.source,
        givenAt: last!.givenAt,
        withdrawnAt: withdrawal?.occurredAt ?? null,
        withdrawalReason: withdrawal?.reason ?? null,
        auditHash: last!.auditHash,
        auditKeyVersion: last!.auditKeyVersion,
      };
      const { consentId: _id, organizationId: _org, ...actual } = consent;
      if (canonicalJson(actual) !== canonicalJson(expected)) {
        problem("the consent record differs from the state its recorded history gives");
        continue;
      }
      const hashProblem = checkAuditHash(keys, auditInputOf(consent), consent);
      if (hashProblem) problem(hashProblem);
    }
  }
  return consentsChecked;
}
