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

export interface Nomination {
  nominationId: string;
  nomineeName: string;
  nomineeContact: string;
  status: NominationStatus;
}

type NominationRow = {
  nomination_id: string;
  principal_id: string;
  nominee_name: string;
  nominee_contact: string;
  status: NominationStatus;
};

const toNomination = (r: NominationRow): Nomination => ({
  nominationId: r.nomination_id,
  nomineeName: r.nominee_name,
  nomineeContact: r.nominee_contact,
  status: r.status,
});

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// E.164 allows 15 digits; 7 is the shortest subscriber number worth accepting with a prefix.
const PHONE = /^\+?[0-9][0-9 ().-]{5,22}$/;

/** Trimmed nominee details; blank or unreachable values are VALIDATION_ERROR naming the field. */
export function parseNominee(input: { nomineeName: string; nomineeContact: string }): {
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

async function activeNomination(
  db: Queryable,
  organizationId: string,
  principalId: string,
  lock = false,
): Promise<NominationRow | undefined> {
  const rows = await db.query<NominationRow>(
    `SELECT nomination_id, principal_id, nominee_name, nominee_contact, status FROM nominations
      WHERE organization_id = $1 AND principal_id = $2 AND status = 'active'${lock ? " FOR UPDATE" : ""}`,
    [organizationId, principalId],
  );
  return rows[0];
}

export async function getActiveNomination(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<Nomination | null> {
  const row = await activeNomination(db, organizationId, principalId);
  return row ? toNomination(row) : null;
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
    let current = await activeNomination(tx, principal.organizationId, principal.principalId, true);
    if (!current) {
      const inserted = await tx.query<NominationRow>(
        `INSERT INTO nominations (organization_id, nomination_id, principal_id, nominee_name, nominee_contact, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'active', $6, $6)
         ON CONFLICT (organization_id, principal_id) WHERE status = 'active' DO NOTHING
         RETURNING nomination_id, principal_id, nominee_name, nominee_contact, status`,
        [
          principal.organizationId,
          newId("nom"),
          principal.principalId,
          nominee.nomineeName,
          nominee.nomineeContact,
          now,
        ],
      );
      if (inserted[0]) {
        await changed(
          tx,
          principal,
          inserted[0].nomination_id,
          { from: null, to: "active", kind: "created" },
          actor,
          now,
        );
        return toNomination(inserted[0]);
      }
      // A concurrent PUT created it first: update that one instead of making a second.
      current = (await activeNomination(tx, principal.organizationId, principal.principalId, true))!;
    }
    if (current.nominee_name === nominee.nomineeName && current.nominee_contact === nominee.nomineeContact) {
      return toNomination(current);
    }
    await tx.query(
      `UPDATE nominations SET nominee_name = $3, nominee_contact = $4, updated_at = $5
        WHERE organization_id = $1 AND nomination_id = $2`,
      [principal.organizationId, current.nomination_id, nominee.nomineeName, nominee.nomineeContact, now],
    );
    await changed(
      tx,
      principal,
      current.nomination_id,
      { from: "active", to: "active", kind: "updated" },
      actor,
      now,
    );
    return toNomination({
      ...current,
      nominee_name: nominee.nomineeName,
      nominee_contact: nominee.nomineeContact,
    });
  });
}

/** Revokes the active nomination inside `tx`; `revoked: false` when there was none. */
export async function revokeActiveNomination(
  tx: Queryable,
  principal: PrincipalRef,
  actor: Actor,
  now: number,
  kind: "revoked" | "erased" = "revoked",
): Promise<{ revoked: boolean; nominationId?: string }> {
  const rows = await tx.query<{ nomination_id: string }>(
    `UPDATE nominations SET status = 'revoked', revoked_at = $3, updated_at = $3
      WHERE organization_id = $1 AND principal_id = $2 AND status = 'active'
      RETURNING nomination_id`,
    [principal.organizationId, principal.principalId, now],
  );
  if (!rows[0]) return { revoked: false };
  await changed(tx, principal, rows[0].nomination_id, { from: "active", to: "revoked", kind }, actor, now);
  return { revoked: true, nominationId: rows[0].nomination_id };
}

/** DELETE: revokes the active nomination; `revoked: false` (still a success) when there was none. */
export async function revokeNomination(
  db: Database,
  principal: PrincipalRef,
  actor: Actor,
  now: number,
): Promise<{ revoked: boolean }> {
  const result = await db.transaction((tx) => revokeActiveNomination(tx, principal, actor, now));
  return { revoked: result.revoked };
}
