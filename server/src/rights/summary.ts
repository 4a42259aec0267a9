// The answer to a `summary` request (DPDP Act s. 11(1)(a)): a summary of the personal data Guard
// holds for the principal and the processing it records — identifiers, every consent with the
// exact notice version and itemised description it was given against, the purposes currently
// processed under active consents and how often the fiduciary's systems checked them at the
// Consent Gate, where the principal's consent events are sent, and the principal's own rights
// requests. Built from the database at generation time and stored as the request's response.
import { findOrganizationById } from "../accounts/organizations.js";
import { isVerifiedChild } from "../consent/children.js";
import { listConsentsOfPrincipal } from "../consent/consents.js";
import type { Queryable } from "../db/database.js";
import { listEndpoints } from "../webhooks/endpoints.js";
import type { DsrRecord } from "./dsr.js";

interface NoticeVersionFacts {
  noticeId: string;
  version: number;
  status: string;
  publishedAt: number | null;
  title: string | null;
  languages: string[];
  itemized: { purpose: string; personalDataDescription?: string }[];
}

async function noticeVersionsOf(
  db: Queryable,
  organizationId: string,
  keys: { noticeId: string; version: number }[],
): Promise<NoticeVersionFacts[]> {
  if (keys.length === 0) return [];
  const rows = await db.query<{
    notice_id: string;
    version: number;
    status: string;
    published_at: number | null;
    content: Record<string, { title?: string }>;
    languages: string[];
    itemized: { purpose: string; personalDataDescription?: string }[];
  }>(
    `SELECT v.notice_id, v.version, v.status, v.published_at, v.content, v.languages, v.itemized
       FROM notice_versions v
      WHERE v.organization_id = $1
        AND (v.notice_id, v.version) IN (SELECT * FROM unnest($2::text[], $3::int[]))
      ORDER BY v.notice_id, v.version`,
    [organizationId, keys.map((k) => k.noticeId), keys.map((k) => k.version)],
  );
  return rows.map((r) => {
    const firstLanguage = r.languages[0];
    const title = r.content.en?.title ?? (firstLanguage ? r.content[firstLanguage]?.title : undefined);
    return {
      noticeId: r.notice_id,
      version: r.version,
      status: r.status,
      publishedAt: r.published_at,
      title: title ?? null,
      languages: r.languages,
      itemized: r.itemized.map((i) => ({
        purpose: i.purpose,
        ...(i.personalDataDescription ? { personalDataDescription: i.personalDataDescription } : {}),
      })),
    };
  });
}

/**
 * Per consent of the principal: how often it was checked at the Consent Gate and the latest check.
 * Served by the GIN index gate_decision_groups_by_consent (migration 0040), so it reads only the
 * groups that checked one of the principal's consents, not the organisation's whole log.
 */
export const GATE_CHECKS_SQL = `SELECT d.consent_id, count(*)::int AS checks, max(g.decided_at) AS last_checked_at,
            (array_agg(CASE WHEN d.allowed THEN 'allow' ELSE 'deny' END
                       ORDER BY g.decided_at DESC, d.decision_id DESC))[1] AS last_decision
       FROM gate_decision_groups g
      CROSS JOIN LATERAL unnest(g.decision_ids, g.consent_ids, g.allowed) AS d (decision_id, consent_id, allowed)
      WHERE g.organization_id = $1 AND g.consent_ids && $2::text[] AND d.consent_id = ANY ($2::text[])
      GROUP BY d.consent_id`;

/** How often each consent was checked at the Consent Gate, and the latest check. */
async function gateChecks(
  db: Queryable,
  organizationId: string,
  consentIds: string[],
): Promise<Map<string, { checks: number; lastCheckedAt: number; lastDecision: string }>> {
  if (consentIds.length === 0) return new Map();
  const rows = await db.query<{
    consent_id: string;
    checks: number;
    last_checked_at: number;
    last_decision: string;
  }>(GATE_CHECKS_SQL, [organizationId, consentIds]);
  return new Map(
    rows.map((r) => [
      r.consent_id,
      { checks: r.checks, lastCheckedAt: r.last_checked_at, lastDecision: r.last_decision },
    ]),
  );
}

export async function buildPrincipalSummary(
  tx: Queryable,
  request: DsrRecord,
  now: number,
): Promise<Record<string, unknown>> {
  const { organizationId, principalId } = request;
  const organization = await findOrganizationById(tx, organizationId);
  const [principal] = await tx.query<{ external_id: string; email: string | null; created_at: number }>(
    "SELECT external_id, email, created_at FROM principals WHERE organization_id = $1 AND principal_id = $2",
    [organizationId, principalId],
  );
  const consents = await listConsentsOfPrincipal(tx, organizationId, principalId);
  const versionKeys = [
    ...new Map(
      consents.map((c) => [
        `${c.noticeId}#${c.noticeVersion}`,
        { noticeId: c.noticeId, version: c.noticeVersion },
      ]),
    ).values(),
  ];
  const notices = await noticeVersionsOf(tx, organizationId, versionKeys);
  const checks = await gateChecks(
    tx,
    organizationId,
    consents.map((c) => c.consentId),
  );
  const descriptionOf = (noticeId: string, version: number, purpose: string) =>
    notices
      .find((n) => n.noticeId === noticeId && n.version === version)
      ?.itemized.find((i) => i.purpose === purpose)?.personalDataDescription ?? null;

  const active = consents.filter((c) => c.withdrawnAt === null);
  const endpoints = await listEndpoints(tx, organizationId);
  const dsrs = await tx.query<{
    request_id: string;
    type: string;
    status: string;
    created_at: number;
    due_at: number;
  }>(
    `SELECT request_id, type, status, created_at, due_at FROM dsr_requests
      WHERE organization_id = $1 AND principal_id = $2 ORDER BY created_at`,
    [organizationId, principalId],
  );
  const grievances = await tx.query<{
    grievance_id: string;
    subject: string;
    status: string;
    created_at: number;
  }>(
    `SELECT grievance_id, subject, status, created_at FROM grievances
      WHERE organization_id = $1 AND principal_id = $2 ORDER BY created_at`,
    [organizationId, principalId],
  );
  const [nomination] = await tx.query<{ nominee_name: string; created_at: number }>(
    "SELECT nominee_name, created_at FROM nominations WHERE organization_id = $1 AND principal_id = $2 AND status = 'active'",
    [organizationId, principalId],
  );

  return {
    summaryVersion: 1,
    generatedAt: now,
    requestId: request.requestId,
    dataFiduciary: { organizationId, name: organization?.name ?? null },
    principal: {
      externalId: principal?.external_id ?? null,
      email: principal?.email ?? null,
      firstSeenAt: principal?.created_at ?? null,
      verifiedChild: await isVerifiedChild(tx, organizationId, principalId),
    },
    consents: consents.map((c) => ({
      consentId: c.consentId,
      status: c.withdrawnAt === null ? "active" : "withdrawn",
      noticeId: c.noticeId,
      noticeVersion: c.noticeVersion,
      purpose: c.purpose,
      dataTypes: c.dataTypes,
      personalDataDescription: descriptionOf(c.noticeId, c.noticeVersion, c.purpose),
      source: c.source,
      givenAt: c.givenAt,
      withdrawnAt: c.withdrawnAt,
      withdrawalReason: c.withdrawalReason,
      auditHash: c.auditHash,
    })),
    notices,
    processing: active.map((c) => {
      const gate = checks.get(c.consentId);
      return {
        purpose: c.purpose,
        dataTypes: c.dataTypes,
        personalDataDescription: descriptionOf(c.noticeId, c.noticeVersion, c.purpose),
        basis: "consent",
        consentId: c.consentId,
        since: c.givenAt,
        consentGateChecks: gate?.checks ?? 0,
        lastCheckedAt: gate?.lastCheckedAt ?? null,
      };
    }),
    // The fiduciary's systems that receive this principal's consent and rights events from Guard.
    eventRecipients: endpoints.map((e) => ({ host: new URL(e.url).host, events: e.events })),
    rightsRequests: dsrs.map((d) => ({
      requestId: d.request_id,
      type: d.type,
      status: d.status,
      createdAt: d.created_at,
      dueAt: d.due_at,
    })),
    grievances: grievances.map((g) => ({
      grievanceId: g.grievance_id,
      subject: g.subject,
      status: g.status,
      createdAt: g.created_at,
    })),
    nomination: nomination ? { nomineeName: nomination.nominee_name, since: nomination.created_at } : null,
    retention:
      "Consent records and their audit hashes are kept as evidence for at least one year after the consent ends (DPDP Rules 2025, rules 6 and 8), including after an erasure request.",
  };
}
