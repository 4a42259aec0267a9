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
import { listConsentsOfPrincipal, withdrawConsent } from "../consent/consents.js";
import type { Queryable } from "../db/database.js";
import type { Actor } from "./history.js";
import { revokeActiveNomination } from "./nominations.js";

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

export const REDACTED = "[redacted]";
export const PSEUDONYM_PREFIX = "erased_";

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
  const [principal] = await tx.query<{ external_id: string; email: string | null }>(
    "SELECT external_id, email FROM principals WHERE organization_id = $1 AND principal_id = $2 FOR UPDATE",
    [organizationId, principalId],
  );
  if (!principal) throw new Error(`principal ${principalId} of a DSR request does not exist`);
  const ref = { organizationId, principalId, externalId: principal.external_id };

  const consents = await listConsentsOfPrincipal(tx, organizationId, principalId);
  const consentsWithdrawn: string[] = [];
  for (const consent of consents.filter((c) => c.withdrawnAt === null)) {
    const outcome = await withdrawConsent(tx, { organizationId, consentId: consent.consentId }, now);
    if (outcome.outcome === "withdrawn") consentsWithdrawn.push(consent.consentId);
  }

  await revokeActiveNomination(tx, ref, input.actor, now, "erased");
  const nominations = await tx.query(
    `UPDATE nominations SET nominee_name = $3, nominee_contact = $3, erased_at = $4, updated_at = $4
      WHERE organization_id = $1 AND principal_id = $2 AND erased_at IS NULL RETURNING nomination_id`,
    [organizationId, principalId, REDACTED, now],
  );

  const grievances = await tx.query(
    `UPDATE grievances SET subject = $3, description = $3,
       response = CASE WHEN response IS NULL THEN NULL ELSE $3 END, redacted_at = $4
      WHERE organization_id = $1 AND principal_id = $2 AND redacted_at IS NULL RETURNING grievance_id`,
    [organizationId, principalId, REDACTED, now],
  );
  // Erasure answers (the report, a statutory denial) hold ids and citations, not personal data.
  const requests = await tx.query(
    `UPDATE dsr_requests SET details = CASE WHEN details IS NULL THEN NULL ELSE $3 END,
       response_payload = CASE WHEN response_payload IS NULL OR type = 'erasure' THEN response_payload
                               ELSE jsonb_build_object('redacted', true, 'erasureRequestId', $5::text) END,
       redacted_at = $4
      WHERE organization_id = $1 AND principal_id = $2 AND redacted_at IS NULL RETURNING request_id`,
    [organizationId, principalId, REDACTED, now, input.requestId],
  );
  await tx.query(
    `UPDATE rights_transitions t SET reason = $3
      WHERE t.organization_id = $1 AND t.reason IS NOT NULL AND t.reason <> $3 AND (
        (t.subject_kind = 'grievance' AND t.subject_id IN (SELECT grievance_id FROM grievances WHERE organization_id = $1 AND principal_id = $2))
        OR (t.subject_kind = 'dsr' AND t.subject_id IN (SELECT request_id FROM dsr_requests WHERE organization_id = $1 AND principal_id = $2)))`,
    [organizationId, principalId, REDACTED],
  );

  // The principals row belongs to the accounts domain; erasure is the one writer outside it that
  // may replace its identifiers, and only here.
  const alreadyPseudonymised = principal.external_id.startsWith(PSEUDONYM_PREFIX) && principal.email === null;
  if (!alreadyPseudonymised) {
    await tx.query(
      "UPDATE principals SET external_id = $3, email = NULL WHERE organization_id = $1 AND principal_id = $2",
      [organizationId, principalId, erasurePseudonym(context.pseudonymKey, ref)],
    );
  }

  const report: ErasureReport = {
    erasedAt: now,
    consentsWithdrawn,
    consentRecordsKept: consents.length,
    nominationsErased: nominations.length,
    grievancesRedacted: grievances.length,
    requestsRedacted: requests.length,
    externalId: "pseudonymised",
    email: principal.email === null ? "none_held" : "removed",
    kept: KEPT,
  };
  await tx.query(
    `INSERT INTO principal_erasures (organization_id, principal_id, request_id, erased_at, report)
     VALUES ($1, $2, $3, $4, $5::jsonb)`,
    [organizationId, principalId, input.requestId, now, JSON.stringify(report)],
  );
  return report;
}
