// The answer to a `summary` request (DPDP Act s. 11(1)(a)): a summary of the personal data Guard
// holds for the principal and the processing it records — identifiers, every consent with the
// exact notice version and itemised description it was given against, the purposes currently
// processed under active consents and how often the fiduciary's systems checked them at the
// Consent Gate, where the principal's consent events are sent, and the principal's own rights
// requests. Built from the database at generation time and stored as the request's response.
import { findOrganizationById, findPrincipalsByIds } from "../accounts/store.js";
import { isVerifiedChild } from "../consent/children.js";
import { listConsentsOfPrincipal } from "../consent/consents.js";
import type { Queryable } from "../db/database.js";
import { gateChecksOf } from "../gate/store.js";
import { readVersions } from "../notices/store.js";
import { listEndpoints } from "../webhooks/endpoints.js";
import type { DsrRecord } from "./dsr.js";
import { listStoredDsrOfPrincipal } from "./store/dsr.js";
import { listStoredGrievancesOfPrincipal } from "./store/grievances.js";
import { findActiveNomination } from "./store/nominations.js";

interface NoticeVersionFacts {
  noticeId: string;
  version: number;
  status: string;
  publishedAt: number | null;
  title: string | null;
  languages: string[];
  itemized: { purpose: string; personalDataDescription?: string }[];
}

/** The notice versions the principal's consents were given against, with their titles. */
async function noticeVersionsOf(
  db: Queryable,
  organizationId: string,
  keys: { noticeId: string; version: number }[],
): Promise<NoticeVersionFacts[]> {
  const versions = await readVersions(db, organizationId, keys);
  return versions.map((v) => {
    const firstLanguage = v.languages[0];
    const title = v.content.en?.title ?? (firstLanguage ? v.content[firstLanguage]?.title : undefined);
    return {
      noticeId: v.noticeId,
      version: v.version,
      status: v.status,
      publishedAt: v.publishedAt,
      title: title ?? null,
      languages: v.languages,
      itemized: v.itemized.map((i) => ({
        purpose: i.purpose,
        ...(i.personalDataDescription ? { personalDataDescription: i.personalDataDescription } : {}),
      })),
    };
  });
}

export async function buildPrincipalSummary(
  tx: Queryable,
  request: DsrRecord,
  now: number,
): Promise<Record<string, unknown>> {
  const { organizationId, principalId } = request;
  const organization = await findOrganizationById(tx, organizationId);
  const [principal] = await findPrincipalsByIds(tx, [{ organizationId, principalId }]);
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
  const checks = await gateChecksOf(
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
  // Oldest first: the principal's own record of what she asked for and when.
  const dsrs = (await listStoredDsrOfPrincipal(tx, organizationId, principalId)).reverse();
  const grievances = (await listStoredGrievancesOfPrincipal(tx, organizationId, principalId)).reverse();
  const nomination = await findActiveNomination(tx, organizationId, principalId);

  return {
    summaryVersion: 1,
    generatedAt: now,
    requestId: request.requestId,
    dataFiduciary: { organizationId, name: organization?.name ?? null },
    principal: {
      externalId: principal?.externalId ?? null,
      email: principal?.email ?? null,
      firstSeenAt: principal?.createdAt ?? null,
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
      requestId: d.requestId,
      type: d.type,
      status: d.status,
      createdAt: d.createdAt,
      dueAt: d.dueAt,
    })),
    grievances: grievances.map((g) => ({
      grievanceId: g.grievanceId,
      subject: g.subject,
      status: g.status,
      createdAt: g.createdAt,
    })),
    nomination: nomination ? { nomineeName: nomination.nomineeName, since: nomination.createdAt } : null,
    retention:
      "Consent records and their audit hashes are kept as evidence for at least one year after the consent ends (DPDP Rules 2025, rules 6 and 8), including after an erasure request.",
  };
}
