// Consent rules (their statements are in store.ts). Writers take the caller's transaction (`tx`)
// and record every change as a consent event (consent/events.ts) in it. Rules:
//  - a consent is given against the notice's published version, for a purpose the notice itemises;
//  - one active consent per (principal, notice, purpose), and per (guest, notice, purpose) while the
//    guest is unlinked: the same notice version again is ALREADY_CONSENTED; a newer version replaces
//    the old consent (closed as `reconsented`), which is how re-consent after a notice change works;
//  - withdrawal sets withdrawn_at and appends an event; nothing is ever deleted.
import { validateAuditFields } from "@guard/contract";
import { auditHashNow, type AuditKeys } from "../audit/keys.js";
import type { Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { groupBy } from "../lib/group-by.js";
import { newId } from "../lib/ids.js";
import { currentItemization } from "../notices/published-cache.js";
import { publishedVersionNumbers, versionItemization } from "../notices/store.js";
import { isTrackingPurpose, isVerifiedChild, type ItemizedEntry } from "./children.js";
import { recordConsentEvent, recordConsentEvents } from "./events.js";
import {
  auditInputOf,
  withExternalId,
  withExternalIds,
  type Consent,
  type ConsentSource,
  type WithdrawalReason,
} from "./model.js";
import {
  lockConsentsByIds,
  markConsentsWithdrawn,
  insertConsent,
  insertConsents,
  listActiveLinkedConsents,
  listStoredConsentsOfPrincipal,
  lockActiveConsent,
  lockGuestConsentsFor,
  lockHolderConsents,
  markConsentWithdrawn,
  moveConsentToPrincipal,
} from "./store.js";

export interface ConsentDeps {
  auditKeys: AuditKeys;
}

/**
 * Refuses what would make two different consents share one audit-hash canonical string (`|` in a
 * field, `,` in a data type, an empty data type, an unpaired surrogate), naming the field.
 */
export function assertAuditSafe(input: {
  organizationId: string;
  noticeId: string;
  purpose: string;
  dataTypes: readonly string[];
}): void {
  const [problem] = validateAuditFields({ ...input, noticeVersion: 1, givenAt: 0, source: null });
  if (problem) throw validationError(problem.field, `${problem.field} ${problem.reason}`);
}

export interface ConsentNotice {
  noticeId: string;
  version: number;
  /** The itemised entry of the purpose being consented to. */
  entry: ItemizedEntry;
}

/**
 * The notice version a new consent is given against: the notice must be the organisation's (else
 * 404, the same as absent), published (else NOTICE_NOT_PUBLISHED: draft, archived, or every version
 * superseded), and must itemise `purpose` (else VALIDATION_ERROR on `purpose`). Read through the
 * notices' per-instance cache: a publish or archive is announced in its transaction.
 */
export async function resolveConsentNotice(
  db: Queryable,
  organizationId: string,
  noticeId: string,
  purpose: string,
): Promise<ConsentNotice> {
  const published = await currentItemization(db, organizationId, noticeId);
  if (published === undefined) throw notFound("No such notice in this organisation");
  if (published === null) {
    throw new Failure("NOTICE_NOT_PUBLISHED", "The notice has no published version to consent to");
  }
  const entry = published.itemized.find((item) => item.purpose === purpose);
  if (!entry) {
    throw validationError("purpose", "purpose must be one of the purposes the notice itemises");
  }
  return { noticeId, version: published.version, entry };
}

export type ConsentHolder =
  | { kind: "principal"; principalId: string; externalId: string | null }
  | { kind: "guest"; anonymousId: string };

export interface GiveConsentInput {
  organizationId: string;
  holder: ConsentHolder;
  notice: { noticeId: string; version: number };
  purpose: string;
  dataTypes: string[];
  source: ConsentSource;
}

export async function giveConsent(
  tx: Queryable,
  deps: ConsentDeps,
  input: GiveConsentInput,
  now: number,
): Promise<Consent> {
  const alreadyConsented = () =>
    new Failure("ALREADY_CONSENTED", "An active consent exists for this notice and purpose");
  const externalId = input.holder.kind === "principal" ? input.holder.externalId : null;
  const consentId = newId("cns");
  const fields = {
    organizationId: input.organizationId,
    noticeId: input.notice.noticeId,
    noticeVersion: input.notice.version,
    purpose: input.purpose,
    dataTypes: input.dataTypes,
    givenAt: now,
    source: input.source,
  };
  const hash = auditHashNow(deps.auditKeys, auditInputOf(fields));
  const principalId = input.holder.kind === "principal" ? input.holder.principalId : null;
  const anonymousId = input.holder.kind === "guest" ? input.holder.anonymousId : null;
  const consent: Consent = {
    ...fields,
    consentId,
    principalId,
    externalId,
    anonymousId,
    withdrawnAt: null,
    withdrawalReason: null,
    ...hash,
  };
  // Inserted first: most captures are a holder's first consent to the purpose, and then this one
  // statement is the whole check. The partial unique index (one active consent per holder, notice
  // and purpose) refuses it when one is active, or makes it wait for a concurrent first consent.
  if (!(await insertConsent(tx, consent))) {
    const active = await lockActiveConsent(
      tx,
      input.organizationId,
      input.holder.kind === "principal"
        ? { principalId: input.holder.principalId }
        : { anonymousId: input.holder.anonymousId },
      input.notice.noticeId,
      input.purpose,
    );
    // A consent to the same version is a repeat. One to an earlier version is replaced: closed as
    // `reconsented`, then this one given. (None active: it was withdrawn meanwhile; try once more.)
    if (active?.noticeVersion === input.notice.version) throw alreadyConsented();
    if (active) await closeConsent(tx, { ...active, externalId }, "reconsented", now);
    if (!(await insertConsent(tx, consent))) throw alreadyConsented();
  }
  await recordConsentEvent(tx, consent, "given", now);
  return consent;
}

/**
 * giveConsent for several consents of one organisation, written as batches (a synced batch of
 * offline captures gives hundreds at once): one multi-row insert, then their events, chain entries
 * and webhook events in a fixed number of statements. A consent the insert refuses (its holder has
 * an active one to the notice and purpose) goes through giveConsent, which resolves it the usual
 * way. Returns the consents in the order given.
 */
export async function giveConsents(
  tx: Queryable,
  deps: ConsentDeps,
  organizationId: string,
  inputs: readonly Omit<GiveConsentInput, "organizationId">[],
  now: number,
): Promise<Consent[]> {
  const firsts = await giveFirstConsents(tx, deps, organizationId, inputs, now);
  const given: Consent[] = [];
  for (const [i, first] of firsts.entries())
    given.push(first ?? (await giveConsent(tx, deps, { ...inputs[i]!, organizationId }, now)));
  return given;
}

/**
 * The batched half of giveConsents: gives each consent whose holder has none active to its notice
 * and purpose, in a fixed number of statements; `undefined` for the others, which the caller
 * resolves with giveConsent (a repeat, or a reconsent to a newer version). A group commit of
 * captures (consent/routes.ts) sends those through their own request instead.
 */
export async function giveFirstConsents(
  tx: Queryable,
  deps: ConsentDeps,
  organizationId: string,
  inputs: readonly Omit<GiveConsentInput, "organizationId">[],
  now: number,
): Promise<(Consent | undefined)[]> {
  const consents: Consent[] = inputs.map((input) => {
    const fields = {
      organizationId,
      noticeId: input.notice.noticeId,
      noticeVersion: input.notice.version,
      purpose: input.purpose,
      dataTypes: input.dataTypes,
      givenAt: now,
      source: input.source,
    };
    return {
      ...fields,
      consentId: newId("cns"),
      principalId: input.holder.kind === "principal" ? input.holder.principalId : null,
      externalId: input.holder.kind === "principal" ? input.holder.externalId : null,
      anonymousId: input.holder.kind === "guest" ? input.holder.anonymousId : null,
      withdrawnAt: null,
      withdrawalReason: null,
      ...auditHashNow(deps.auditKeys, auditInputOf(fields)),
    };
  });
  const inserted = await insertConsents(tx, consents);
  await recordConsentEvents(
    tx,
    organizationId,
    consents.filter((consent) => inserted.has(consent.consentId)),
    "given",
    now,
  );
  return consents.map((consent) => (inserted.has(consent.consentId) ? consent : undefined));
}

/** Marks an active consent withdrawn and records the event; returns the consent as it now stands. */
async function closeConsent(
  tx: Queryable,
  consent: Consent,
  reason: WithdrawalReason,
  now: number,
): Promise<Consent> {
  await markConsentWithdrawn(tx, consent.organizationId, consent.consentId, { at: now, reason });
  const closed: Consent = { ...consent, withdrawnAt: now, withdrawalReason: reason };
  await recordConsentEvent(tx, closed, "withdrawn", now);
  return closed;
}

export type WithdrawOutcome =
  | { outcome: "withdrawn"; consent: Consent }
  | { outcome: "already_withdrawn"; consent: Consent }
  | { outcome: "not_found" };

/** The principal's (or the fiduciary's on their behalf) withdrawal of one consent. */
export async function withdrawConsent(
  tx: Queryable,
  input: { organizationId: string; consentId: string },
  now: number,
): Promise<WithdrawOutcome> {
  return (await withdrawConsents(tx, [input], now))[0]!;
}

/**
 * withdrawConsent for several consents (a group commit's withdrawals, of any organisations) in a
 * fixed number of statements per organisation: the consents locked (in id order), marked
 * withdrawn, and their events, chain entries and webhook events written as batches. Each input's
 * outcome, in order; a consent named twice is withdrawn by the first and `already_withdrawn` for
 * the others, as one after another would have it.
 */
export async function withdrawConsents(
  tx: Queryable,
  inputs: readonly { organizationId: string; consentId: string }[],
  now: number,
): Promise<WithdrawOutcome[]> {
  const outcomes: WithdrawOutcome[] = inputs.map(() => ({ outcome: "not_found" }));
  const organizations = [...groupBy(inputs.keys(), (i) => inputs[i]!.organizationId)].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  for (const [organizationId, indexes] of organizations) {
    const ids = [...new Set(indexes.map((i) => inputs[i]!.consentId))];
    const stored = await lockConsentsByIds(tx, organizationId, ids);
    const found = new Map(
      (await withExternalIds(tx, organizationId, stored)).map((consent) => [consent.consentId, consent]),
    );
    const closing = [...found.values()]
      .filter((consent) => consent.withdrawnAt === null)
      .map((consent): Consent => ({ ...consent, withdrawnAt: now, withdrawalReason: "principal_request" }));
    await markConsentsWithdrawn(
      tx,
      organizationId,
      closing.map((consent) => consent.consentId),
      { at: now, reason: "principal_request" },
    );
    await recordConsentEvents(tx, organizationId, closing, "withdrawn", now);
    const closed = new Map(closing.map((consent) => [consent.consentId, consent]));
    for (const i of indexes) {
      const consentId = inputs[i]!.consentId;
      const mine = closed.get(consentId);
      if (mine) {
        outcomes[i] = { outcome: "withdrawn", consent: mine };
        closed.delete(consentId); // a second input naming it finds it already withdrawn
        found.set(consentId, mine);
        continue;
      }
      const consent = found.get(consentId);
      if (consent) outcomes[i] = { outcome: "already_withdrawn", consent };
    }
  }
  return outcomes;
}

export type GuestWithdrawOutcome =
  { outcome: "withdrawn"; consent: Consent } | { outcome: "already_withdrawn" } | { outcome: "not_found" };

/**
 * A guest's withdrawal of its consent to (notice, purpose), proven by the `anonymousId` it gave
 * the consent under. Every active consent given under that id closes (normally one; two when the
 * guest consented again after an earlier consent was linked to a principal), so the withdrawal is
 * as complete as the giving was. The newest closed one is answered.
 */
export async function withdrawGuestConsent(
  tx: Queryable,
  input: { organizationId: string; anonymousId: string; noticeId: string; purpose: string },
  now: number,
): Promise<GuestWithdrawOutcome> {
  const given = await lockGuestConsentsFor(
    tx,
    input.organizationId,
    input.anonymousId,
    input.noticeId,
    input.purpose,
  );
  if (given.length === 0) return { outcome: "not_found" };
  const active = given.filter((consent) => consent.withdrawnAt === null);
  if (active.length === 0) return { outcome: "already_withdrawn" };
  const closed: Consent[] = [];
  for (const stored of active) {
    const consent = await withExternalId(tx, input.organizationId, stored);
    closed.push(await closeConsent(tx, consent, "principal_request", now));
  }
  return { outcome: "withdrawn", consent: closed[0]! };
}

/** The itemised entry of `purpose` in one notice version (undefined if that version lacks it). */
async function itemizedEntryOf(
  tx: Queryable,
  consent: Pick<Consent, "organizationId" | "noticeId" | "noticeVersion" | "purpose">,
): Promise<ItemizedEntry | undefined> {
  const itemized = await versionItemization(
    tx,
    consent.organizationId,
    consent.noticeId,
    consent.noticeVersion,
  );
  return itemized?.find((item) => item.purpose === consent.purpose);
}

async function isBlockedTracking(tx: Queryable, consent: Consent): Promise<boolean> {
  return isTrackingPurpose((await itemizedEntryOf(tx, consent)) ?? { purpose: consent.purpose });
}

export interface LinkResult {
  linkedCount: number;
  needsReconsent: { noticeId: string; purpose: string }[];
}

/**
 * Moves a guest's consents to the principal (source `linked`, re-hashed). Safe to repeat: only
 * consents still held by the guest move, and they are locked, so a concurrent second link of the
 * same guest waits and then finds nothing left to move.
 */
export async function linkAnonymousConsents(
  tx: Queryable,
  deps: ConsentDeps,
  input: {
    organizationId: string;
    principalId: string;
    externalId: string;
    anonymousId: string;
    blockTrackingForChildren: boolean;
  },
  now: number,
): Promise<LinkResult> {
  const guestConsents = await lockHolderConsents(
    tx,
    input.organizationId,
    { anonymousId: input.anonymousId },
    { activeOnly: false },
  );
  const child =
    guestConsents.length > 0 &&
    input.blockTrackingForChildren &&
    (await isVerifiedChild(tx, input.organizationId, input.principalId));
  for (const stored of guestConsents) {
    let consent: Consent = { ...stored, externalId: null };
    if (consent.withdrawnAt === null) {
      // Closed while still the guest's, so the principal never holds two active consents at once.
      const held = await lockActiveConsent(
        tx,
        input.organizationId,
        { principalId: input.principalId },
        consent.noticeId,
        consent.purpose,
      );
      if (held) consent = await closeConsent(tx, consent, "superseded_on_link", now);
      else if (child && (await isBlockedTracking(tx, consent)))
        consent = await closeConsent(tx, consent, "minor_tracking_blocked", now);
    }
    const hash = auditHashNow(deps.auditKeys, auditInputOf({ ...consent, source: "linked" }));
    await moveConsentToPrincipal(tx, consent.organizationId, consent.consentId, input.principalId, hash);
    const linked: Consent = {
      ...consent,
      principalId: input.principalId,
      externalId: input.externalId,
      source: "linked",
      ...hash,
    };
    await recordConsentEvent(tx, linked, "linked", now);
  }
  return {
    linkedCount: guestConsents.length,
    needsReconsent: await needsReconsent(tx, input),
  };
}

/**
 * The (notice, purpose) pairs of the guest's linked, active consents whose notice now has a newer
 * published version, by notice and purpose (a notice with nothing published asks for nothing).
 */
async function needsReconsent(
  tx: Queryable,
  input: { organizationId: string; principalId: string; anonymousId: string },
): Promise<{ noticeId: string; purpose: string }[]> {
  const linked = await listActiveLinkedConsents(
    tx,
    input.organizationId,
    input.principalId,
    input.anonymousId,
  );
  const published = await publishedVersionNumbers(tx, input.organizationId, [
    ...new Set(linked.map((consent) => consent.noticeId)),
  ]);
  const stale: { noticeId: string; purpose: string }[] = [];
  for (const consent of linked) {
    const version = published.get(consent.noticeId);
    if (version === undefined || version === consent.noticeVersion) continue;
    const previous = stale[stale.length - 1];
    if (previous?.noticeId === consent.noticeId && previous.purpose === consent.purpose) continue;
    stale.push({ noticeId: consent.noticeId, purpose: consent.purpose });
  }
  return stale;
}

/**
 * Closes the principal's active tracking consents (reason `minor_tracking_blocked`): run when the
 * principal has just been verified as a child at an organisation that blocks tracking for children.
 */
export async function closeTrackingConsentsOfChild(
  tx: Queryable,
  input: { organizationId: string; principalId: string },
  now: number,
): Promise<number> {
  const active = await withExternalIds(
    tx,
    input.organizationId,
    await lockHolderConsents(
      tx,
      input.organizationId,
      { principalId: input.principalId },
      { activeOnly: true },
    ),
  );
  let closed = 0;
  for (const consent of active) {
    if (!(await isBlockedTracking(tx, consent))) continue;
    await closeConsent(tx, consent, "minor_tracking_blocked", now);
    closed += 1;
  }
  return closed;
}

/** Every consent of a principal at the organisation, newest first. */
export async function listConsentsOfPrincipal(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<Consent[]> {
  return withExternalIds(
    db,
    organizationId,
    await listStoredConsentsOfPrincipal(db, organizationId, principalId),
  );
}
