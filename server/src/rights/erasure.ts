// Erasure (DPDP Act s. 12(3)): completing an erasure request erases or pseudonymises the personal
// data Guard holds for the principal, in the same transaction that records the completion, and
// keeps only the evidence the law requires. In order:
//   1. every active consent is withdrawn through the consent domain (consent.withdrawn is emitted
//      for each, still naming the principal by the externalId processors know);
//   2. the active nomination is revoked (nomination.changed), and every nomination's nominee name
//      and contact are overwritten;
//   3. grievance subjects, descriptions and responses, DSR details, and the generated answers of
//      earlier summary/processors/correction requests are redacted, as are the free-text reasons in
//      their history;
//   4. the principal's externalId is replaced by a keyed pseudonym and its email removed.
// Kept (README.md "Erasure"): consent records, their events, audit hashes and audit-chain entries
// (Rules 2025 r. 6 and 8: at least one year), parental-verification hashes, Consent Gate decisions
// (consent ids only), and the status, type, dates and history of rights requests.
import { createHmac } from "node:crypto";
import { lockPrincipal, pseudonymisePrincipal } from "../accounts/store.js";
import { listConsentsOfPrincipal, withdrawConsents } from "../consent/consents.js";
import type { Queryable } from "../db/database.js";
import type { Actor } from "./history.js";
import { revokeActiveNomination } from "./nominations.js";
import { redactDsrOfPrincipal } from "./store/dsr.js";
import { insertErasure } from "./store/erasures.js";
import { redactGrievancesOfPrincipal } from "./store/grievances.js";
import { eraseNomineesOfPrincipal } from "./store/nominations.js";
import { redactTransitionReasonsOfPrincipal } from "./store/transitions.js";

export interface ErasureContext {
  /** Key material (config.secretsKey) for the pseudonym that replaces the externalId. */
  pseudonymKey: string;
}

export interface ErasureReport {
  erasedAt: number;
  consentsWithdrawn: string[];
  consentRecordsKept: number;
  nominationsErased: number;
  grievancesRedacted: number;
  requestsRedacted: number;
  externalId: "pseudonymised";
  email: "removed" | "none_held";
  kept: string[];
}

const REDACTED = "[redacted]";
const PSEUDONYM_PREFIX = "erased_";

const KEPT = [
  "consent records, their history and audit hashes (evidence, DPDP Rules 2025 rules 6 and 8)",
  "audit-chain entries (ids, statuses and hashes only)",
  "parental-verification hashes",
  "Consent Gate decisions (consent ids only)",
  "type, status, dates and history of rights requests, grievances and nominations",
];

/**
 * A keyed, one-way stand-in for the externalId: without the key nobody can test a guessed
 * externalId against it; with it, the fiduciary can confirm that a given user was erased. The
 * principal id is mixed in so a later principal with the same externalId gets another pseudonym.
 */
export function erasurePseudonym(
  key: string,
  input: { organizationId: string; principalId: string; externalId: string },
): string {
  const derived = createHmac("sha256", key).update("guard/rights/erasure-pseudonym/v1").digest();
  const mac = createHmac("sha256", derived)
    .update(JSON.stringify([input.organizationId, input.principalId, input.externalId]))
    .digest("hex");
  return `${PSEUDONYM_PREFIX}${mac.slice(0, 40)}`;
}

export async function erasePrincipalData(
  tx: Queryable,
  input: { organizationId: string; principalId: string; requestId: string; actor: Actor },
  context: ErasureContext,
  now: number,
): Promise<ErasureReport> {
  const { organizationId, principalId } = input;
  const principal = await lockPrincipal(tx, organizationId, principalId);
  if (!principal) throw new Error(`principal ${principalId} of a DSR request does not exist`);
  const ref = { organizationId, principalId, externalId: principal.externalId };

  const consents = await listConsentsOfPrincipal(tx, organizationId, principalId);
  const active = consents.filter((c) => c.withdrawnAt === null);
  const outcomes = await withdrawConsents(
    tx,
    active.map((consent) => ({ organizationId, consentId: consent.consentId })),
    now,
  );
  const consentsWithdrawn = active
    .filter((_, i) => outcomes[i]!.outcome === "withdrawn")
    .map((consent) => consent.consentId);

  await revokeActiveNomination(tx, ref, input.actor, now, "erased");
  const redaction = { organizationId, principalId, redacted: REDACTED, now };
  const nominationsErased = await eraseNomineesOfPrincipal(tx, redaction);
  const grievancesRedacted = await redactGrievancesOfPrincipal(tx, redaction);
  const requestsRedacted = await redactDsrOfPrincipal(tx, {
    ...redaction,
    erasureRequestId: input.requestId,
  });
  await redactTransitionReasonsOfPrincipal(tx, { organizationId, principalId, redacted: REDACTED });

  // The principals row is the accounts domain's; erasure replaces its identifiers through it.
  const alreadyPseudonymised = principal.externalId.startsWith(PSEUDONYM_PREFIX) && principal.email === null;
  if (!alreadyPseudonymised) {
    await pseudonymisePrincipal(tx, {
      organizationId,
      principalId,
      pseudonym: erasurePseudonym(context.pseudonymKey, ref),
    });
  }

  const report: ErasureReport = {
    erasedAt: now,
    consentsWithdrawn,
    consentRecordsKept: consents.length,
    nominationsErased,
    grievancesRedacted,
    requestsRedacted,
    externalId: "pseudonymised",
    email: principal.email === null ? "none_held" : "removed",
    kept: KEPT,
  };
  await insertErasure(tx, { organizationId, principalId, requestId: input.requestId, erasedAt: now, report });
  return report;
}
