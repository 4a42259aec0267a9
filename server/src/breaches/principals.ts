// Who a breach affected, and telling them (DPDP Rules 2025 r.7(1)). Principals are added by the
// fiduciary's ids (externalIds, read through the accounts store) or by purpose (every principal
// holding an active or withdrawn consent to one of them, read through the consent store). Telling
// them goes through the Notifier (notifications/notifier.ts) in the caller's transaction; once every
// affected principal has been told, the breach's reportedToUserAt is set.
import { findPrincipalRow } from "../accounts/store.js";
import { appendAuditEntry } from "../audit/chain.js";
import { pagePrincipalsWithConsentsTo } from "../consent/store.js";
import type { Database, Queryable } from "../db/database.js";
import { validationError } from "../lib/failure.js";
import type { Notifier } from "../notifications/notifier.js";
import { lockBreach, purposeLabels, text, type BreachActor } from "./register.js";
import { breachStatusOf } from "./status.js";
import {
  affectedCounts,
  insertAffectedPrincipals,
  markAffectedNotified,
  pendingAffectedPrincipals,
} from "./store/affected.js";
import { updateBreach, type BreachRecord } from "./store/breaches.js";

export const MAX_EXTERNAL_IDS = 1000;
/** Principals added per chain entry (and read per statement) when adding by purpose. */
const ADD_BATCH = 1000;
/** Principals told per transaction: a large breach is notified in several commits. */
const NOTIFY_BATCH = 200;
const MAX_MESSAGE_PART = 2000;

export interface AddPrincipalsInput {
  organizationId: string;
  breachId: string;
  externalIds?: unknown;
  purposes?: unknown;
  actor: BreachActor;
}

async function recordAdded(
  tx: Queryable,
  breach: BreachRecord,
  principalIds: string[],
  via: "externalIds" | "purposes",
  actor: BreachActor,
  now: number,
): Promise<number> {
  const added = await insertAffectedPrincipals(tx, {
    organizationId: breach.organizationId,
    breachId: breach.breachId,
    principalIds,
    addedAt: now,
  });
  if (added.length === 0) return 0;
  await appendAuditEntry(
    tx,
    {
      organizationId: breach.organizationId,
      entryType: "breach.principals_added",
      subjectId: breach.breachId,
      payload: {
        breachId: breach.breachId,
        principalIds: added,
        via,
        actor: { kind: actor.kind, id: actor.id },
      },
    },
    now,
  );
  return added.length;
}

/**
 * Adds affected principals to the breach in `tx`, by exactly one of `externalIds` (each must be a
 * principal Guard knows; unknown ones are VALIDATION_ERROR naming them, and nothing is added) or
 * `purposes`. Principals already on the breach are skipped. Answers how many were added.
 */
export async function addAffectedPrincipals(
  tx: Queryable,
  input: AddPrincipalsInput,
  now: number,
): Promise<number> {
  if ((input.externalIds === undefined) === (input.purposes === undefined))
    throw validationError("externalIds", "Give exactly one of externalIds or purposes");
  const breach = await lockBreach(tx, input.organizationId, input.breachId);
  if (input.externalIds !== undefined) {
    const ids = input.externalIds;
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_EXTERNAL_IDS)
      throw validationError("externalIds", `externalIds must be a list of 1-${MAX_EXTERNAL_IDS} ids`);
    const principalIds: string[] = [];
    const unknown: string[] = [];
    for (const [i, externalId] of ids.entries()) {
      if (typeof externalId !== "string" || externalId.length === 0 || externalId.length > 200)
        throw validationError(`externalIds[${i}]`, `externalIds[${i}] must be 1-200 characters`);
      const principal = await findPrincipalRow(tx, input.organizationId, { externalId });
      if (principal) principalIds.push(principal.principalId);
      else unknown.push(externalId);
    }
    if (unknown.length > 0)
      throw validationError(
        "externalIds",
        `${unknown.length} of externalIds ${unknown.length === 1 ? "is" : "are"} not a principal of this organisation: ` +
          unknown.slice(0, 10).join(", ") +
          (unknown.length > 10 ? ", ..." : ""),
      );
    return recordAdded(tx, breach, [...new Set(principalIds)].sort(), "externalIds", input.actor, now);
  }
  const purposes = purposeLabels(input.purposes, "purposes");
  let added = 0;
  let after = "";
  for (;;) {
    const batch = await pagePrincipalsWithConsentsTo(tx, input.organizationId, purposes, after, ADD_BATCH);
    if (batch.length === 0) break;
    added += await recordAdded(tx, breach, batch, "purposes", input.actor, now);
    after = batch[batch.length - 1]!;
    if (batch.length < ADD_BATCH) break;
  }
  return added;
}

/** What r.7(1) requires the principal be told beyond the breach's own description and mitigation. */
export interface BreachNoticeInput {
  consequences: unknown;
  safetyMeasures: unknown;
  contact: unknown;
}

/** The notification's text: the r.7(1)(a)-(e) items, in that order. */
export function breachNoticeMessage(
  breach: BreachRecord,
  notice: { consequences: string; safetyMeasures: string; contact: string },
): { subject: string; body: string } {
  const when =
    `It was discovered on ${new Date(breach.discoveredAt).toISOString()}` +
    (breach.occurredAt === null ? "." : ` and occurred on ${new Date(breach.occurredAt).toISOString()}.`);
  return {
    subject: "A personal data breach affected your data",
    body: [
      `What happened: ${breach.description}`,
      when,
      `What it may mean for you: ${notice.consequences}`,
      `What we have done and are doing: ${breach.mitigation ?? ""}`,
      `What you can do to protect yourself: ${notice.safetyMeasures}`,
      `Who can answer your questions: ${notice.contact}`,
      `Reference: ${breach.breachId}`,
    ].join("\n\n"),
  };
}

export interface NotifyInput extends BreachNoticeInput {
  organizationId: string;
  breachId: string;
  actor: BreachActor;
}

export interface NotifyResult {
  /** Principals told by this call. */
  notified: number;
  breach: BreachRecord;
}

/**
 * Tells every affected principal not yet told, through `notifier`, in batches of NOTIFY_BATCH
 * principals per transaction (each with a `breach.principals_notified` chain entry), and sets the
 * breach's reportedToUserAt in the batch that tells the last one. The breach row is locked in each
 * batch, so two calls at once take turns and the last batch of either sees the whole table. A
 * drill tells nobody: its principals are marked as rehearsed (notified, no notification). A
 * breach with nobody on it, or without mitigation measures to tell of, is VALIDATION_ERROR.
 */
export async function notifyAffectedPrincipals(
  db: Database,
  notifier: Notifier,
  input: NotifyInput,
  now: () => number,
): Promise<NotifyResult> {
  const notice = {
    consequences: text(input.consequences, "consequences", MAX_MESSAGE_PART),
    safetyMeasures: text(input.safetyMeasures, "safetyMeasures", MAX_MESSAGE_PART),
    contact: text(input.contact, "contact", MAX_MESSAGE_PART),
  };
  let notified = 0;
  for (;;) {
    const step = await db.transaction(async (tx) => {
      const at = now();
      const breach = await lockBreach(tx, input.organizationId, input.breachId);
      if (breach.mitigation === null)
        throw validationError(
          "mitigation",
          "Record the breach's mitigation measures first: r.7(1) requires telling principals of them",
        );
      const counts = (await affectedCounts(tx, breach.organizationId, [breach.breachId])).get(
        breach.breachId,
      );
      if (!counts || counts.total === 0)
        throw validationError(
          "principals",
          "No affected principals are recorded for this breach; add them first",
        );
      const pending = await pendingAffectedPrincipals(
        tx,
        breach.organizationId,
        breach.breachId,
        NOTIFY_BATCH,
      );
      const told: { principalId: string; notificationId: string | null }[] = [];
      const message = breachNoticeMessage(breach, notice);
      for (const principalId of pending) {
        const notificationId = breach.drill
          ? null
          : (
              await notifier.notify(
                tx,
                {
                  organizationId: breach.organizationId,
                  principalId,
                  kind: "breach.affected",
                  subjectId: breach.breachId,
                  message,
                },
                at,
              )
            ).notificationId;
        if (
          await markAffectedNotified(tx, {
            organizationId: breach.organizationId,
            breachId: breach.breachId,
            principalId,
            notifiedAt: at,
            notificationId,
          })
        )
          told.push({ principalId, notificationId });
      }
      const allTold = counts.notified + told.length === counts.total;
      let current = breach;
      if (allTold && breach.reportedToUserAt === null) {
        const times = {
          reportedToUserAt: at,
          reportedToBoardAt: breach.reportedToBoardAt,
          detailedReportSubmittedAt: breach.detailedReportSubmittedAt,
        };
        current = await updateBreach(tx, breach.organizationId, breach.breachId, {
          ...breach,
          ...times,
          status: breachStatusOf(times),
          updatedAt: at,
        });
      }
      if (told.length > 0 || current !== breach) {
        await appendAuditEntry(
          tx,
          {
            organizationId: breach.organizationId,
            entryType: "breach.principals_notified",
            subjectId: breach.breachId,
            payload: {
              breachId: breach.breachId,
              notified: told,
              reportedToUserAt: current.reportedToUserAt,
              status: current.status,
              actor: { kind: input.actor.kind, id: input.actor.id },
            },
          },
          at,
        );
      }
      return { told: told.length, breach: current, more: pending.length === NOTIFY_BATCH };
    });
    notified += step.told;
    if (!step.more) return { notified, breach: step.breach };
  }
}
