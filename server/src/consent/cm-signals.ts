// Inbound Consent Manager signals (POST /api/v1/cm/signal). MeitY's registered-CM interoperability
// specification is not published, so no signal is mapped to a local principal yet: the first
// delivery of a signal is `unresolved`, and an exact repeat (same registry id, CM name, principal
// token, purposes in the same order and signal type) is stored again as `duplicate`. Which one is
// first is decided by a partial unique index, so concurrent identical deliveries yield one original.
import { createHash } from "node:crypto";
import type { Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { newId } from "../lib/ids.js";
import { findOriginalCmSignal, insertCmSignal } from "./store.js";

export type CmSignalType = "consent_given" | "consent_withdrawn" | "consent_updated";

export interface CmSignalInput {
  cmRegistryId: string;
  cmName: string;
  principalTokenFromCm: string;
  purposes: string[];
  signalType: CmSignalType;
}

const CM_SIGNAL_CONTEXT = "urn:guard:jsonld:cm-signal:v1";

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
  const signal = {
    organizationId,
    cmRegistryId: input.cmRegistryId,
    cmName: input.cmName,
    principalTokenFromCm: input.principalTokenFromCm,
    purposes: input.purposes,
    signalType: input.signalType,
    receivedAt: now,
    fingerprint,
  };
  let mappingStatus: "unresolved" | "duplicate" = "unresolved";
  let signalId = newId("sig");
  if (!(await insertCmSignal(db, { ...signal, signalId, mappingStatus, duplicateOf: null }))) {
    const original = await findOriginalCmSignal(db, organizationId, fingerprint);
    mappingStatus = "duplicate";
    signalId = newId("sig");
    await insertCmSignal(db, { ...signal, signalId, mappingStatus, duplicateOf: original ?? null });
  }
  return {
    "@context": CM_SIGNAL_CONTEXT,
    signalId,
    cmRegistryId: input.cmRegistryId,
    cmName: input.cmName,
    principalTokenFromCm: input.principalTokenFromCm,
    purposes: input.purposes,
    signalType: input.signalType,
    receivedAt: now,
    mappingStatus,
  };
}
