// The consent domain's tables: consents (one row per consent, withdrawn but never deleted),
// consent_events (its append-only history, each event on the audit chain), parental_verifications
// and cm_signals. Only this module reads or writes them; every statement filters by the caller's
// organization_id. The Consent Gate reads consents through `consentStandsSql` (below).
import type { Queryable } from "../db/database.js";
import { execute, first, qb, rows, sql } from "../db/query.js";
import type { Consent, ConsentSource, WithdrawalReason } from "./model.js";

// ---------------------------------------------------------------------------------------------
// consents

/** A consent as stored: the holder's externalId is the accounts domain's (see model.ts). */
export type StoredConsent = Omit<Consent, "externalId">;

/** Whose consent: a principal's, or a guest's while the guest is unlinked. */
export type ConsentHolderKey = { principalId: string } | { anonymousId: string };

const CONSENT_COLUMNS = [
  "organization_id",
  "consent_id",
  "principal_id",
  "anonymous_id",
  "notice_id",
  "notice_version",
  "purpose",
  "data_types",
  "source",
  "given_at",
  "withdrawn_at",
  "withdrawal_reason",
  "audit_hash",
  "audit_key_version",
] as const;

const selectConsents = (organizationId: string) =>
  qb.selectFrom("consents").select(CONSENT_COLUMNS).where("organization_id", "=", organizationId);

type ConsentRow = Awaited<ReturnType<typeof rows<ReturnType<typeof selectConsents>>>>[number];

// Only this module writes these columns, from the types they are read back as (data_types from a
// string array, source and withdrawal_reason from their unions).
const toStoredConsent = (row: ConsentRow): StoredConsent => ({
  organizationId: row.organization_id,
  consentId: row.consent_id,
  principalId: row.principal_id,
  anonymousId: row.anonymous_id,
  noticeId: row.notice_id,
  noticeVersion: row.notice_version,
  purpose: row.purpose,
  dataTypes: row.data_types as string[],
  source: row.source as ConsentSource,
  givenAt: row.given_at,
  withdrawnAt: row.withdrawn_at,
  withdrawalReason: row.withdrawal_reason as WithdrawalReason | null,
  auditHash: row.audit_hash,
  auditKeyVersion: row.audit_key_version,
});

/** One consent of the organisation; `forUpdate` locks it until the transaction ends. */
export async function findStoredConsent(
  db: Queryable,
  organizationId: string,
  consentId: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredConsent | undefined> {
  const query = selectConsents(organizationId).where("consent_id", "=", consentId);
  const row = await first(db, options.forUpdate ? query.forUpdate() : query);
  return row && toStoredConsent(row);
}

/** The holder's consents: a principal's, or those a guest gave while unlinked. */
const selectHolderConsents = (organizationId: string, holder: ConsentHolderKey) =>
  selectConsents(organizationId).where((eb) =>
    "principalId" in holder
      ? eb("principal_id", "=", holder.principalId)
      : eb.and([eb("anonymous_id", "=", holder.anonymousId), eb("principal_id", "is", null)]),
  );

/** Locks and returns the holder's active consent for (notice, purpose), if any (at most one). */
export async function lockActiveConsent(
  tx: Queryable,
  organizationId: string,
  holder: ConsentHolderKey,
  noticeId: string,
  purpose: string,
): Promise<StoredConsent | undefined> {
  const row = await first(
    tx,
    selectHolderConsents(organizationId, holder)
      .where("notice_id", "=", noticeId)
      .where("purpose", "=", purpose)
      .where("withdrawn_at", "is", null)
      .forUpdate(),
  );
  return row && toStoredConsent(row);
}

/**
 * Locks and returns the consents given under `anonymousId` for (notice, purpose), whether still
 * the guest's or since linked to a principal, newest first.
 */
export async function lockGuestConsentsFor(
  tx: Queryable,
  organizationId: string,
  anonymousId: string,
  noticeId: string,
  purpose: string,
): Promise<StoredConsent[]> {
  const found = await rows(
    tx,
    selectConsents(organizationId)
      .where("anonymous_id", "=", anonymousId)
      .where("notice_id", "=", noticeId)
      .where("purpose", "=", purpose)
      .orderBy("given_at", "desc")
      .orderBy("consent_id", "desc")
      .forUpdate(),
  );
  return found.map(toStoredConsent);
}

/** A consent as its `consents` row. */
function consentRow(consent: StoredConsent) {
  return {
    organization_id: consent.organizationId,
    consent_id: consent.consentId,
    principal_id: consent.principalId,
    anonymous_id: consent.anonymousId,
    notice_id: consent.noticeId,
    notice_version: consent.noticeVersion,
    purpose: consent.purpose,
    data_types: JSON.stringify(consent.dataTypes),
    source: consent.source,
    given_at: consent.givenAt,
    withdrawn_at: consent.withdrawnAt,
    withdrawal_reason: consent.withdrawalReason,
    audit_hash: consent.auditHash,
    audit_key_version: consent.auditKeyVersion,
  };
}

/**
 * Inserts a new consent; false when the holder already has an active one for (notice, purpose):
 * a concurrent first consent for the same key loses here, on the partial unique indexes.
 */
export async function insertConsent(tx: Queryable, consent: StoredConsent): Promise<boolean> {
  const inserted = await rows(
    tx,
    qb
      .insertInto("consents")
      .values(consentRow(consent))
      .onConflict((oc) => oc.doNothing())
      .returning("consent_id"),
    // Every capture runs it: planned once per connection.
    { preparedAs: "consent_insert" },
  );
  return inserted.length > 0;
}

/**
 * Inserts several consents in one statement; the ids of those inserted. A consent refused by the
 * partial unique index (its holder already has an active one to the notice and purpose) is not
 * inserted and not returned: the caller gives it through the one-at-a-time path, which resolves it.
 */
export async function insertConsents(
  tx: Queryable,
  consents: readonly StoredConsent[],
): Promise<Set<string>> {
  if (consents.length === 0) return new Set();
  const inserted = await rows(
    tx,
    qb
      .insertInto("consents")
      .values(consents.map(consentRow))
      .onConflict((oc) => oc.doNothing())
      .returning("consent_id"),
  );
  return new Set(inserted.map((row) => row.consent_id));
}

/**
 * Locks and returns the organisation's consents with these ids (those that exist), in id order:
 * every group locks in one order, so two groups withdrawing the same consents wait, never deadlock.
 */
export async function lockConsentsByIds(
  tx: Queryable,
  organizationId: string,
  consentIds: readonly string[],
): Promise<StoredConsent[]> {
  if (consentIds.length === 0) return [];
  const found = await rows(
    tx,
    selectConsents(organizationId)
      .where("consent_id", "in", [...consentIds])
      .orderBy("consent_id")
      .forUpdate(),
  );
  return found.map(toStoredConsent);
}

/**
 * When each of the organisation's consents with these ids was withdrawn (null while active), by id;
 * ids of no consent of the organisation are absent. For lists of other domains' records that name
 * the consent they gave (an IVR artefact), without a lock.
 */
export async function withdrawalTimesOf(
  db: Queryable,
  organizationId: string,
  consentIds: readonly string[],
): Promise<Map<string, number | null>> {
  if (consentIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("consents")
      .select(["consent_id", "withdrawn_at"])
      .where("organization_id", "=", organizationId)
      .where("consent_id", "in", [...consentIds]),
  );
  return new Map(found.map((row) => [row.consent_id, row.withdrawn_at]));
}

/** markConsentWithdrawn for several consents of one organisation, in one statement. */
export async function markConsentsWithdrawn(
  tx: Queryable,
  organizationId: string,
  consentIds: readonly string[],
  withdrawal: { at: number; reason: WithdrawalReason },
): Promise<void> {
  if (consentIds.length === 0) return;
  await execute(
    tx,
    qb
      .updateTable("consents")
      .set({ withdrawn_at: withdrawal.at, withdrawal_reason: withdrawal.reason })
      .where("organization_id", "=", organizationId)
      .where("consent_id", "in", [...consentIds])
      .where("withdrawn_at", "is", null),
  );
}

/** Marks an active consent withdrawn (a withdrawn one is left as it is). */
export async function markConsentWithdrawn(
  tx: Queryable,
  organizationId: string,
  consentId: string,
  withdrawal: { at: number; reason: WithdrawalReason },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("consents")
      .set({ withdrawn_at: withdrawal.at, withdrawal_reason: withdrawal.reason })
      .where("organization_id", "=", organizationId)
      .where("consent_id", "=", consentId)
      .where("withdrawn_at", "is", null),
    // Every withdrawal runs it: planned once per connection.
    { preparedAs: "consent_mark_withdrawn" },
  );
}

/** Locks and returns the holder's consents (with `activeOnly`, those not withdrawn), oldest first. */
export async function lockHolderConsents(
  tx: Queryable,
  organizationId: string,
  holder: ConsentHolderKey,
  options: { activeOnly: boolean },
): Promise<StoredConsent[]> {
  const found = await rows(
    tx,
    selectHolderConsents(organizationId, holder)
      .$if(options.activeOnly, (q) => q.where("withdrawn_at", "is", null))
      .orderBy("given_at")
      .orderBy("consent_id")
      .forUpdate(),
  );
  return found.map(toStoredConsent);
}

/** Moves a consent to the principal with source `linked` and its recomputed audit hash. */
export async function moveConsentToPrincipal(
  tx: Queryable,
  organizationId: string,
  consentId: string,
  principalId: string,
  hash: { auditHash: string; auditKeyVersion: number },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("consents")
      .set({
        principal_id: principalId,
        source: "linked",
        audit_hash: hash.auditHash,
        audit_key_version: hash.auditKeyVersion,
      })
      .where("organization_id", "=", organizationId)
      .where("consent_id", "=", consentId),
  );
}

/**
 * The (notice, purpose, version) of the principal's active consents linked from this guest, by
 * notice and purpose.
 */
export async function listActiveLinkedConsents(
  db: Queryable,
  organizationId: string,
  principalId: string,
  anonymousId: string,
): Promise<{ noticeId: string; purpose: string; noticeVersion: number }[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("consents")
      .select(["notice_id", "purpose", "notice_version"])
      .distinct()
      .where("organization_id", "=", organizationId)
      .where("principal_id", "=", principalId)
      .where("anonymous_id", "=", anonymousId)
      .where("source", "=", "linked")
      .where("withdrawn_at", "is", null)
      .orderBy("notice_id")
      .orderBy("purpose")
      .orderBy("notice_version"),
  );
  return found.map((r) => ({ noticeId: r.notice_id, purpose: r.purpose, noticeVersion: r.notice_version }));
}

/** Every consent of the principal, newest first. */
export async function listStoredConsentsOfPrincipal(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<StoredConsent[]> {
  const found = await rows(
    db,
    selectConsents(organizationId)
      .where("principal_id", "=", principalId)
      .orderBy("given_at", "desc")
      .orderBy("consent_id", "desc"),
  );
  return found.map(toStoredConsent);
}

/**
 * Up to `limit` principals of the organisation holding a consent (active or withdrawn) to any of
 * `purposes`, by principal id after `afterPrincipalId` (breaches/: who a breach of those purposes
 * affected). Guest consents not linked to a principal name nobody and are left out.
 */
export async function pagePrincipalsWithConsentsTo(
  db: Queryable,
  organizationId: string,
  purposes: readonly string[],
  afterPrincipalId: string,
  limit: number,
): Promise<string[]> {
  if (purposes.length === 0) return [];
  const found = await rows(
    db,
    qb
      .selectFrom("consents")
      .select("principal_id")
      .distinct()
      .where("organization_id", "=", organizationId)
      .where("principal_id", ">", afterPrincipalId)
      .where("purpose", "in", [...purposes])
      .orderBy("principal_id")
      .limit(limit),
  );
  return found.map((r) => r.principal_id).filter((id): id is string => id !== null);
}

/** Up to `limit` consents of the organisation with ids after `afterConsentId`, by id. */
export async function pageConsents(
  db: Queryable,
  organizationId: string,
  afterConsentId: string,
  limit: number,
): Promise<StoredConsent[]> {
  const found = await rows(
    db,
    selectConsents(organizationId)
      .where("consent_id", ">", afterConsentId)
      .orderBy("consent_id")
      .limit(limit),
  );
  return found.map(toStoredConsent);
}

/** How many consents of the organisation were given in [from, to). */
export async function countConsentsGivenBetween(
  db: Queryable,
  organizationId: string,
  range: { from: number; to: number },
): Promise<number> {
  const row = await first(
    db,
    qb
      .selectFrom("consents")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("organization_id", "=", organizationId)
      .where("given_at", ">=", range.from)
      .where("given_at", "<", range.to),
  );
  return Number(row?.n ?? 0);
}

/** Where a page of consents in given order starts: after this (given_at, consent_id). */
export interface GivenKey {
  givenAt: number;
  consentId: string;
}

/**
 * Up to `limit` consents of the organisation given in [from, to), by (given_at, consent_id), after
 * `after` when set: a keyset on consents_by_given_at, so each page is one index range and a
 * statement of its own (no transaction is held between pages).
 */
export async function pageConsentsGivenBetween(
  db: Queryable,
  organizationId: string,
  range: { from: number; to: number },
  after: GivenKey | null,
  limit: number,
): Promise<StoredConsent[]> {
  let query = selectConsents(organizationId).where("given_at", "<", range.to);
  query = after
    ? query.where((eb) =>
        eb.or([
          eb("given_at", ">", after.givenAt),
          eb.and([eb("given_at", "=", after.givenAt), eb("consent_id", ">", after.consentId)]),
        ]),
      )
    : query;
  const found = await rows(
    db,
    query
      .where("given_at", ">=", after ? after.givenAt : range.from)
      .orderBy("given_at")
      .orderBy("consent_id")
      .limit(limit),
  );
  return found.map(toStoredConsent);
}

/**
 * The Consent Gate's lookup of one consent, as an SQL expression for the gate's group statement
 * (gate/store.ts) to embed: true while the consent stands, false once withdrawn, null when the
 * organisation has no such consent. `organizationId` and `consentId` are expressions of the
 * embedding statement. A scalar subquery with LIMIT 1, so its only plan is one primary-key probe.
 */
export function consentStandsSql(organizationId: string, consentId: string): string {
  return `(SELECT withdrawn_at IS NULL FROM consents
             WHERE organization_id = ${organizationId} AND consent_id = ${consentId} LIMIT 1)`;
}

// ---------------------------------------------------------------------------------------------
// consent_events

export type ConsentEventType = "given" | "withdrawn" | "linked";

/** One event of a consent's history: the consent as it stood after the event. */
export interface ConsentEvent {
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

/** An event as stored, with the reference of its audit-chain entry. */
export interface ChainedConsentEvent {
  event: ConsentEvent;
  auditRef: number;
}

/** Appends one event to the history; `auditRef` is its audit-chain entry's reference. */
export async function insertConsentEvent(
  tx: Queryable,
  organizationId: string,
  event: ConsentEvent,
  auditRef: number,
): Promise<void> {
  await execute(
    tx,
    qb.insertInto("consent_events").values({
      organization_id: organizationId,
      event_id: event.eventId,
      consent_id: event.consentId,
      event_type: event.eventType,
      occurred_at: event.occurredAt,
      principal_id: event.principalId,
      anonymous_id: event.anonymousId,
      notice_id: event.noticeId,
      notice_version: event.noticeVersion,
      purpose: event.purpose,
      data_types: JSON.stringify(event.dataTypes),
      given_at: event.givenAt,
      source: event.source,
      reason: event.reason,
      audit_hash: event.auditHash,
      audit_key_version: event.auditKeyVersion,
      audit_ref: auditRef,
    }),
    // Every consent write runs it: planned once per connection.
    { preparedAs: "consent_event_insert" },
  );
}

/** Inserts several events of one organisation, each with its chain entry's reference, in one statement. */
export async function insertConsentEvents(
  tx: Queryable,
  organizationId: string,
  events: readonly ChainedConsentEvent[],
): Promise<void> {
  if (events.length === 0) return;
  await execute(
    tx,
    qb.insertInto("consent_events").values(
      events.map(({ event, auditRef }) => ({
        organization_id: organizationId,
        event_id: event.eventId,
        consent_id: event.consentId,
        event_type: event.eventType,
        occurred_at: event.occurredAt,
        principal_id: event.principalId,
        anonymous_id: event.anonymousId,
        notice_id: event.noticeId,
        notice_version: event.noticeVersion,
        purpose: event.purpose,
        data_types: JSON.stringify(event.dataTypes),
        given_at: event.givenAt,
        source: event.source,
        reason: event.reason,
        audit_hash: event.auditHash,
        audit_key_version: event.auditKeyVersion,
        audit_ref: auditRef,
      })),
    ),
  );
}

const selectEvents = (organizationId: string) =>
  qb
    .selectFrom("consent_events")
    .select([
      "event_id",
      "consent_id",
      "event_type",
      "occurred_at",
      "principal_id",
      "anonymous_id",
      "notice_id",
      "notice_version",
      "purpose",
      "data_types",
      "given_at",
      "source",
      "reason",
      "audit_hash",
      "audit_key_version",
      "audit_ref",
    ])
    .where("organization_id", "=", organizationId);

type EventRow = Awaited<ReturnType<typeof rows<ReturnType<typeof selectEvents>>>>[number];

// Written only by insertConsentEvent, from the types they are read back as.
const toChainedEvent = (row: EventRow): ChainedConsentEvent => ({
  event: {
    eventId: row.event_id,
    eventType: row.event_type as ConsentEventType,
    occurredAt: row.occurred_at,
    consentId: row.consent_id,
    principalId: row.principal_id,
    anonymousId: row.anonymous_id,
    noticeId: row.notice_id,
    noticeVersion: row.notice_version,
    purpose: row.purpose,
    dataTypes: row.data_types as string[],
    givenAt: row.given_at,
    source: row.source as ConsentSource,
    reason: row.reason as WithdrawalReason | null,
    auditHash: row.audit_hash,
    auditKeyVersion: row.audit_key_version,
  },
  auditRef: row.audit_ref,
});

/** The events that point at these audit-chain entries (by reference). */
export async function consentEventsAtRefs(
  db: Queryable,
  organizationId: string,
  refs: readonly number[],
): Promise<ChainedConsentEvent[]> {
  if (refs.length === 0) return [];
  const found = await rows(db, selectEvents(organizationId).where("audit_ref", "in", refs));
  return found.map(toChainedEvent);
}

/**
 * Every event of these consents, in chain order for each consent (by reference: an event depends on
 * the consent's previous ones, so it was queued, and is linked, after them).
 */
export async function consentEventsOf(
  db: Queryable,
  organizationId: string,
  consentIds: readonly string[],
): Promise<ChainedConsentEvent[]> {
  if (consentIds.length === 0) return [];
  const found = await rows(
    db,
    selectEvents(organizationId).where("consent_id", "in", consentIds).orderBy("audit_ref"),
  );
  return found.map(toChainedEvent);
}

/** The newest `limit` events of these consents, in chain order (oldest of them first). */
export async function newestConsentEventsOf(
  db: Queryable,
  organizationId: string,
  consentIds: readonly string[],
  limit: number,
): Promise<ChainedConsentEvent[]> {
  if (consentIds.length === 0) return [];
  const found = await rows(
    db,
    selectEvents(organizationId)
      .where("consent_id", "in", consentIds)
      .orderBy("audit_ref", "desc")
      .limit(limit),
  );
  return found.map(toChainedEvent).reverse();
}

/** The chain reference of each consent's latest event; consents without events are left out. */
export async function latestEventRefsOf(
  db: Queryable,
  organizationId: string,
  consentIds: readonly string[],
): Promise<Map<string, number>> {
  if (consentIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("consent_events")
      .select((eb) => ["consent_id", eb.fn.max("audit_ref").as("ref")])
      .where("organization_id", "=", organizationId)
      .where("consent_id", "in", consentIds)
      .groupBy("consent_id"),
  );
  return new Map(found.map((r) => [r.consent_id, Number(r.ref)]));
}

/**
 * Up to `limit` events' ids with their consent and chain reference, by event id after
 * `afterEventId` (a keyset on the primary key, so each page is one index range).
 */
export async function pageConsentEventRefs(
  db: Queryable,
  organizationId: string,
  afterEventId: string,
  limit: number,
): Promise<{ eventId: string; auditRef: number; consentId: string }[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("consent_events")
      .select(["event_id", "audit_ref", "consent_id"])
      .where("organization_id", "=", organizationId)
      .where("event_id", ">", afterEventId)
      .orderBy("event_id")
      .limit(limit),
  );
  return found.map((r) => ({ eventId: r.event_id, auditRef: r.audit_ref, consentId: r.consent_id }));
}

/** Consents given and withdrawn on one calendar day (a day number, see consentEventsPerDay) and purpose. */
export interface ConsentDayCount {
  dayNumber: number;
  purpose: string;
  given: number;
  withdrawn: number;
}

/**
 * Given and withdrawn events with occurred_at in [`from`, `until`], counted per calendar day at
 * `offsetMs` from UTC and per purpose, oldest day first. The day is computed in SQL, as days since
 * 1970-01-01 of the shifted time (`from` is at or after the epoch, so integer division is a floor).
 * Served by consent_events_by_time (migration 0091), so it reads only the window's events.
 */
export function consentEventsPerDayQuery(
  organizationId: string,
  window: { from: number; until: number; offsetMs: number },
) {
  const day = sql<number>`((occurred_at + ${window.offsetMs}::bigint) / 86400000)`;
  return (
    qb
      .selectFrom("consent_events")
      .select([
        day.as("day_number"),
        "purpose",
        sql<number>`count(*) FILTER (WHERE event_type = 'given')`.as("given"),
        sql<number>`count(*) FILTER (WHERE event_type = 'withdrawn')`.as("withdrawn"),
      ])
      .where("organization_id", "=", organizationId)
      .where("occurred_at", ">=", window.from)
      .where("occurred_at", "<=", window.until)
      .where("event_type", "in", ["given", "withdrawn"])
      // By position: the day expression holds a parameter, and PostgreSQL would not match a
      // second copy of it (another placeholder) to the selected one.
      .groupBy([sql`1`, sql`2`])
      .orderBy(sql`1`)
      .orderBy(sql`2`)
  );
}

/** consentEventsPerDayQuery's counts. */
export async function consentEventsPerDay(
  db: Queryable,
  organizationId: string,
  window: { from: number; until: number; offsetMs: number },
): Promise<ConsentDayCount[]> {
  const found = await rows(db, consentEventsPerDayQuery(organizationId, window));
  return found.map((r) => ({
    dayNumber: r.day_number,
    purpose: r.purpose,
    given: r.given,
    withdrawn: r.withdrawn,
  }));
}

// ---------------------------------------------------------------------------------------------
// parental_verifications

/** Whether a parental verification was recorded for the principal. */
export async function hasParentalVerification(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<boolean> {
  const row = await first(
    db,
    qb
      .selectFrom("parental_verifications")
      .select("verification_id")
      .where("organization_id", "=", organizationId)
      .where("principal_id", "=", principalId)
      .limit(1),
  );
  return row !== undefined;
}

/** Records a verification; false when the same token was recorded before (nothing written). */
export async function insertParentalVerification(
  tx: Queryable,
  verification: {
    organizationId: string;
    verificationId: string;
    principalId: string;
    provider: string;
    tokenHash: string;
    parentReferenceHash: string;
    verifiedAt: number;
  },
): Promise<boolean> {
  const inserted = await rows(
    tx,
    qb
      .insertInto("parental_verifications")
      .values({
        organization_id: verification.organizationId,
        verification_id: verification.verificationId,
        principal_id: verification.principalId,
        provider: verification.provider,
        token_hash: verification.tokenHash,
        parent_reference_hash: verification.parentReferenceHash,
        verified_at: verification.verifiedAt,
      })
      .onConflict((oc) => oc.columns(["organization_id", "token_hash"]).doNothing())
      .returning("verification_id"),
  );
  return inserted.length > 0;
}

/** A parental verification as `guard audit verify` compares it with its chain entry. */
export interface AuditedParentalVerification {
  verificationId: string;
  principalId: string;
  provider: string;
  tokenHash: string;
  parentReferenceHash: string;
  verifiedAt: number;
}

const selectVerifications = (organizationId: string) =>
  qb
    .selectFrom("parental_verifications")
    .select([
      "verification_id",
      "principal_id",
      "provider",
      "token_hash",
      "parent_reference_hash",
      "verified_at",
    ])
    .where("organization_id", "=", organizationId);

const toAuditedVerification = (r: {
  verification_id: string;
  principal_id: string;
  provider: string;
  token_hash: string;
  parent_reference_hash: string;
  verified_at: number;
}): AuditedParentalVerification => ({
  verificationId: r.verification_id,
  principalId: r.principal_id,
  provider: r.provider,
  tokenHash: r.token_hash,
  parentReferenceHash: r.parent_reference_hash,
  verifiedAt: r.verified_at,
});

/** The verifications with these ids (audit verify: the rows the chain's entries name). */
export async function parentalVerificationsWithIds(
  db: Queryable,
  organizationId: string,
  verificationIds: readonly string[],
): Promise<AuditedParentalVerification[]> {
  if (verificationIds.length === 0) return [];
  const found = await rows(
    db,
    selectVerifications(organizationId).where("verification_id", "in", verificationIds),
  );
  return found.map(toAuditedVerification);
}

/** Up to `limit` verifications with ids after `afterVerificationId`, by id (audit verify's keyset scan). */
export async function scanParentalVerifications(
  db: Queryable,
  organizationId: string,
  afterVerificationId: string,
  limit: number,
): Promise<AuditedParentalVerification[]> {
  const found = await rows(
    db,
    selectVerifications(organizationId)
      .where("verification_id", ">", afterVerificationId)
      .orderBy("verification_id")
      .limit(limit),
  );
  return found.map(toAuditedVerification);
}

// ---------------------------------------------------------------------------------------------
// cm_signals

export interface StoredCmSignal {
  organizationId: string;
  signalId: string;
  cmRegistryId: string;
  cmName: string;
  principalTokenFromCm: string;
  purposes: string[];
  signalType: string;
  receivedAt: number;
  mappingStatus: "unresolved" | "duplicate";
  fingerprint: string;
  duplicateOf: string | null;
}

/**
 * Stores a signal; false when it would be a second `unresolved` delivery of the same fingerprint
 * (the partial unique index decides, so concurrent identical deliveries yield one original).
 */
export async function insertCmSignal(db: Queryable, signal: StoredCmSignal): Promise<boolean> {
  const inserted = await rows(
    db,
    qb
      .insertInto("cm_signals")
      .values({
        organization_id: signal.organizationId,
        signal_id: signal.signalId,
        cm_registry_id: signal.cmRegistryId,
        cm_name: signal.cmName,
        principal_token_from_cm: signal.principalTokenFromCm,
        purposes: JSON.stringify(signal.purposes),
        signal_type: signal.signalType,
        received_at: signal.receivedAt,
        mapping_status: signal.mappingStatus,
        fingerprint: signal.fingerprint,
        duplicate_of: signal.duplicateOf,
      })
      .onConflict((oc) => oc.doNothing())
      .returning("signal_id"),
  );
  return inserted.length > 0;
}

/** The id of the first delivery of the signal with this fingerprint. */
export async function findOriginalCmSignal(
  db: Queryable,
  organizationId: string,
  fingerprint: string,
): Promise<string | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("cm_signals")
      .select("signal_id")
      .where("organization_id", "=", organizationId)
      .where("fingerprint", "=", fingerprint)
      .where("mapping_status", "<>", "duplicate"),
  );
  return row?.signal_id;
}

/**
 * Retention (retention/sweep.ts): up to `limit` principals of the organisation with ids after
 * `afterPrincipalId` that hold or held a consent for `purpose`, by id.
 */
export async function principalsWithConsentFor(
  db: Queryable,
  organizationId: string,
  purpose: string,
  afterPrincipalId: string,
  limit: number,
): Promise<string[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("consents")
      .select("principal_id")
      .distinct()
      .where("organization_id", "=", organizationId)
      .where("purpose", "=", purpose)
      .where("principal_id", "is not", null)
      .where("principal_id", ">", afterPrincipalId)
      .orderBy("principal_id")
      .limit(limit),
  );
  return found.map((r) => r.principal_id!);
}

/** Per principal and purpose: the latest give and withdrawal, and whether a consent is active. */
export interface ConsentTimes {
  principalId: string;
  purpose: string;
  lastGivenAt: number;
  lastWithdrawnAt: number | null;
  active: boolean;
}

/** Retention: the consent times of these principals of the organisation, per purpose. */
export async function consentTimesOfPrincipals(
  db: Queryable,
  organizationId: string,
  principalIds: readonly string[],
): Promise<ConsentTimes[]> {
  if (principalIds.length === 0) return [];
  const found = await rows(
    db,
    qb
      .selectFrom("consents")
      .select((eb) => [
        "principal_id",
        "purpose",
        eb.fn.max("given_at").as("last_given_at"),
        eb.fn.max("withdrawn_at").as("last_withdrawn_at"),
        sql<boolean>`bool_or(withdrawn_at IS NULL)`.as("active"),
      ])
      .where("organization_id", "=", organizationId)
      .where("principal_id", "in", [...principalIds])
      .groupBy(["principal_id", "purpose"]),
  );
  return found.map((r) => ({
    principalId: r.principal_id!,
    purpose: r.purpose,
    lastGivenAt: Number(r.last_given_at),
    lastWithdrawnAt: r.last_withdrawn_at === null ? null : Number(r.last_withdrawn_at),
    active: r.active === true,
  }));
}
