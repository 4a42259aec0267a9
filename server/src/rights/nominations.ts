// Nomination (DPDP Act s. 14; Rules 2025 r. 14(4)): a principal names someone to exercise her rights
// on her death or incapacity. One active nomination per principal (a partial unique index holds it
// even under concurrent PUTs); PUT creates or updates it in place, DELETE revokes it, and revoking
// when none is active is a successful no-op — withdrawal as easy as giving.
import type { Database, Queryable } from "../db/database.js";
import { validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { recordTransition, type Actor } from "./history.js";
import { assertMove, NOMINATION_TRANSITIONS, type NominationStatus } from "./state-machines.js";
import {
  findActiveNomination,
  findLatestNomination,
  insertActiveNomination,
  revokeStoredNomination,
  updateNominee,
  type StoredNomination,
} from "./store/nominations.js";

export interface Nomination {
  nominationId: string;
  nomineeName: string;
  nomineeContact: string;
  status: NominationStatus;
}

const toNomination = (n: StoredNomination): Nomination => ({
  nominationId: n.nominationId,
  nomineeName: n.nomineeName,
  nomineeContact: n.nomineeContact,
  status: n.status,
});

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// E.164 allows 15 digits; 7 is the shortest subscriber number worth accepting with a prefix.
const PHONE = /^\+?[0-9][0-9 ().-]{5,22}$/;

/** Trimmed nominee details; blank or unreachable values are VALIDATION_ERROR naming the field. */
function parseNominee(input: { nomineeName: string; nomineeContact: string }): {
  nomineeName: string;
  nomineeContact: string;
} {
  const nomineeName = input.nomineeName.trim();
  const nomineeContact = input.nomineeContact.trim();
  if (nomineeName === "") throw validationError("nomineeName", "nomineeName must not be blank");
  if (nomineeContact === "") throw validationError("nomineeContact", "nomineeContact must not be blank");
  const digits = nomineeContact.replace(/\D/g, "").length;
  if (!EMAIL.test(nomineeContact) && !(PHONE.test(nomineeContact) && digits >= 7 && digits <= 15)) {
    throw validationError("nomineeContact", "nomineeContact must be an email address or a phone number");
  }
  return { nomineeName, nomineeContact };
}

export async function getActiveNomination(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<Nomination | null> {
  const stored = await findActiveNomination(db, organizationId, principalId);
  return stored ? toNomination(stored) : null;
}

/** The principal's latest nomination, active or revoked; null when none was ever made. */
export async function getLatestNomination(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<Nomination | null> {
  const stored = await findLatestNomination(db, organizationId, principalId);
  return stored ? toNomination(stored) : null;
}

interface PrincipalRef {
  organizationId: string;
  principalId: string;
  externalId: string;
}

async function changed(
  tx: Queryable,
  principal: PrincipalRef,
  nominationId: string,
  change: {
    from: NominationStatus | null;
    to: NominationStatus;
    kind: "created" | "updated" | "revoked" | "erased";
  },
  actor: Actor,
  now: number,
): Promise<void> {
  assertMove(NOMINATION_TRANSITIONS, "nomination", change.from, change.to);
  await recordTransition(
    tx,
    {
      organizationId: principal.organizationId,
      subjectKind: "nomination",
      subjectId: nominationId,
      principalId: principal.principalId,
      from: change.from,
      to: change.to,
      actor,
      reason: change.kind,
      evidence: { change: change.kind },
    },
    now,
  );
  // The nominee's details stay out of the event: receivers learn that the nomination changed and
  // whose it is, not a third person's contact details.
  await enqueueEvent(
    tx,
    {
      organizationId: principal.organizationId,
      eventType: "nomination.changed",
      payload: {
        nominationId,
        externalId: principal.externalId,
        status: change.to,
        change: change.kind,
        changedAt: now,
      },
    },
    now,
  );
}

/** PUT: creates the active nomination, or updates it in place; unchanged details change nothing. */
export async function upsertNomination(
  db: Database,
  principal: PrincipalRef,
  input: { nomineeName: string; nomineeContact: string },
  actor: Actor,
  now: number,
): Promise<Nomination> {
  const nominee = parseNominee(input);
  return db.transaction(async (tx) => {
    const { organizationId, principalId } = principal;
    let current = await findActiveNomination(tx, organizationId, principalId, { forUpdate: true });
    if (!current) {
      const inserted = await insertActiveNomination(tx, {
        organizationId,
        nominationId: newId("nom"),
        principalId,
        ...nominee,
        now,
      });
      if (inserted) {
        await changed(
          tx,
          principal,
          inserted.nominationId,
          { from: null, to: "active", kind: "created" },
          actor,
          now,
        );
        return toNomination(inserted);
      }
      // A concurrent PUT created it first: update that one instead of making a second.
      current = (await findActiveNomination(tx, organizationId, principalId, { forUpdate: true }))!;
    }
    if (current.nomineeName === nominee.nomineeName && current.nomineeContact === nominee.nomineeContact) {
      return toNomination(current);
    }
    await updateNominee(tx, { organizationId, nominationId: current.nominationId, ...nominee, now });
    await changed(
      tx,
      principal,
      current.nominationId,
      { from: "active", to: "active", kind: "updated" },
      actor,
      now,
    );
    return toNomination({ ...current, ...nominee });
  });
}

/** Revokes the active nomination inside `tx`; false when there was none. */
export async function revokeActiveNomination(
  tx: Queryable,
  principal: PrincipalRef,
  actor: Actor,
  now: number,
  kind: "revoked" | "erased" = "revoked",
): Promise<boolean> {
  const nominationId = await revokeStoredNomination(tx, principal.organizationId, principal.principalId, now);
  if (nominationId === undefined) return false;
  await changed(tx, principal, nominationId, { from: "active", to: "revoked", kind }, actor, now);
  return true;
}

/** DELETE: revokes the active nomination; `revoked: false` (still a success) when there was none. */
export async function revokeNomination(
  db: Database,
  principal: PrincipalRef,
  actor: Actor,
  now: number,
): Promise<{ revoked: boolean }> {
  const revoked = await db.transaction((tx) => revokeActiveNomination(tx, principal, actor, now));
  return { revoked };
}
