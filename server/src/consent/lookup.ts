// The staff lookup console: a principal found by email or externalId, with the evidence of every
// consent (audit hash, key version, place on the audit chain), the consent events in the order
// they happened, and the principal's nomination (the rights domain's).
import { findPrincipal } from "../accounts/principals.js";
import { findPrincipalsByIds, type PrincipalRow } from "../accounts/store.js";
import { chainEntriesAtRefs } from "../audit/store.js";
import { linkQueuedOf } from "../audit/sequencer.js";
import type { Database, Queryable } from "../db/database.js";
import { notFound, validationError } from "../lib/failure.js";
import { getLatestNomination, type Nomination } from "../rights/nominations.js";
import { listConsentsOfPrincipal } from "./consents.js";
import { consentEvidence, type ConsentSource } from "./model.js";
import { latestEventRefsOf, newestConsentEventsOf } from "./store.js";

/** The lookup shows at most this many events (the newest), so one busy principal stays one page. */
export const LOOKUP_EVENT_LIMIT = 500;

/**
 * The principal a query names by exactly one of email and externalId (getConsentStatus and the
 * staff lookup share this): neither or both is VALIDATION_ERROR, no match NOT_FOUND.
 */
export async function principalByQuery(
  db: Queryable,
  organizationId: string,
  query: { email?: string; externalId?: string },
): Promise<PrincipalRow> {
  if ((query.email === undefined) === (query.externalId === undefined)) {
    throw validationError(
      query.email === undefined ? "email" : "externalId",
      "Pass exactly one of email and externalId",
    );
  }
  const principal = await findPrincipal(
    db,
    organizationId,
    query.email !== undefined ? { email: query.email } : { externalId: query.externalId! },
  );
  if (!principal) throw notFound("No data principal of this organisation matches");
  return principal;
}

export interface PrincipalLookup {
  principal: { principalId: string; externalId: string; email: string | null; createdAt: number };
  consents: {
    consentId: string;
    noticeId: string;
    noticeVersion: number;
    purpose: string;
    dataTypes: string[];
    source: ConsentSource;
    status: "active" | "withdrawn";
    givenAt: number;
    withdrawnAt: number | null;
    withdrawalReason: string | null;
    auditHash: string;
    auditKeyVersion: number;
    chainSeq: number | null;
  }[];
  events: {
    eventId: string;
    consentId: string;
    eventType: string;
    occurredAt: number;
    purpose: string;
    source: string;
    reason: string | null;
    auditHash: string;
    auditKeyVersion: number;
    chainSeq: number | null;
  }[];
  nomination: Nomination | null;
}

export async function lookUpPrincipal(
  db: Database,
  organizationId: string,
  query: { email?: string; externalId?: string },
  now: number,
): Promise<PrincipalLookup> {
  const found = await principalByQuery(db, organizationId, query);
  const [identity] = await findPrincipalsByIds(db, [{ organizationId, principalId: found.principalId }]);
  // Erased between the two reads: as absent as if it had never been found.
  if (!identity) throw notFound("No data principal of this organisation matches");
  const consents = await listConsentsOfPrincipal(db, organizationId, found.principalId);
  const consentIds = consents.map((c) => c.consentId);
  // Positions exist once the sequencer has linked the entries: link what is still queued first.
  await linkQueuedOf(db, organizationId, now);
  const latestRefs = await latestEventRefsOf(db, organizationId, consentIds);
  const events = await newestConsentEventsOf(db, organizationId, consentIds, LOOKUP_EVENT_LIMIT);
  const positions = await chainEntriesAtRefs(db, organizationId, [
    ...latestRefs.values(),
    ...events.map((e) => e.auditRef),
  ]);
  const seqOf = (ref: number | undefined) => (ref === undefined ? null : (positions.get(ref)?.seq ?? null));
  const nomination = await getLatestNomination(db, organizationId, found.principalId);
  return {
    principal: {
      principalId: identity.principalId,
      externalId: identity.externalId,
      email: identity.email,
      createdAt: identity.createdAt,
    },
    consents: consents.map((c) => ({
      consentId: c.consentId,
      noticeId: c.noticeId,
      noticeVersion: c.noticeVersion,
      purpose: c.purpose,
      dataTypes: c.dataTypes,
      status: c.withdrawnAt === null ? "active" : "withdrawn",
      givenAt: c.givenAt,
      withdrawnAt: c.withdrawnAt,
      withdrawalReason: c.withdrawalReason,
      ...consentEvidence(c),
      chainSeq: seqOf(latestRefs.get(c.consentId)),
    })),
    events: events.map(({ event, auditRef }) => ({
      eventId: event.eventId,
      consentId: event.consentId,
      // The consent event log's names, as webhooks and the audit chain use them.
      eventType: `consent.${event.eventType}`,
      occurredAt: event.occurredAt,
      purpose: event.purpose,
      source: event.source,
      reason: event.reason,
      auditHash: event.auditHash,
      auditKeyVersion: event.auditKeyVersion,
      // Linked above, so every event has its position; null only if its entry was deleted behind
      // our back (tampering, which verification reports), never a made-up position.
      chainSeq: seqOf(auditRef),
    })),
    nomination,
  };
}
