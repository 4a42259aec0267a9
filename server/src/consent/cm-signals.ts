// Inbound Consent Manager signals (POST /api/v1/cm/signal). MeitY's registered-CM interoperability
// specification is not published, so no signal is mapped to a local principal yet: the first
// delivery of a signal is `unresolved`, and an exact repeat (same registry id, CM name, principal
// token, purposes in the same order and signal type) is stored again as `duplicate`. Which one is
// first is decided by a partial unique index, so concurrent identical deliveries yield one original.
import { createHash } from "node:crypto";
import type { Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { newId } from "../lib/ids.js";

export type CmSignalType = "consent_given" | "consent_withdrawn" | "consent_updated";

export interface CmSignalInput {
  cmRegistryId: string;
  cmName: string;
  principalTokenFromCm: string;
  purposes: string[];
  signalType: CmSignalType;
}

export const CM_SIGNAL_CONTEXT = "urn:guard:jsonld:cm-signal:v1";

export async function recordCmSignal(
  db: Queryable,
  organizationId: string,
  input: CmSignalInput,
  now: number,
) {
  const fingerprint = createHash("sha256")
    .update(
      canonicalJson({
        cmRegistryId: input.cmRegistryId,
        cmName: input.cmName,
        principalTokenFromCm: input.principalTokenFromCm,
        purposes: input.purposes,
        signalType: input.signalType,
      }),
    )
    .digest("hex");
  const insert = (status: "unresolved" | "duplicate", duplicateOf: string | null) =>
    db.query<{ signal_id: string }>(
      `INSERT INTO cm_signals
         (organization_id, signal_id, cm_registry_id, cm_name, principal_token_from_cm, purposes,
          signal_type, received_at, mapping_status, fingerprint, duplicate_of)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11)
       ON CONFLICT DO NOTHING RETURNING signal_id`,
      [
        organizationId,
        newId("sig"),
        input.cmRegistryId,
        input.cmName,
        input.principalTokenFromCm,
        JSON.stringify(input.purposes),
        input.signalType,
        now,
        status,
        fingerprint,
        duplicateOf,
      ],
    );
  let mappingStatus: "unresolved" | "duplicate" = "unresolved";
  let [row] = await insert("unresolved", null);
  if (!row) {
    const [original] = await db.query<{ signal_id: string }>(
      "SELECT signal_id FROM cm_signals WHERE organization_id = $1 AND fingerprint = $2 AND mapping_status <> 'duplicate'",
      [organizationId, fingerprint],
    );
    mappingStatus = "duplicate";
    [row] = await insert("duplicate", original!.signal_id);
  }
  return {
    "@context": CM_SIGNAL_CONTEXT,
    signalId: row!.signal_id,
    cmRegistryId: input.cmRegistryId,
    cmName: input.cmName,
    principalTokenFromCm: input.principalTokenFromCm,
    purposes: input.purposes,
    signalType: input.signalType,
    receivedAt: now,
    mappingStatus,
  };
}
