// Shared steps of the rights tests: brokered principals, filing, and reading back the evidence
// (history rows, audit-chain entries, outbox events) straight from the database.
import assert from "node:assert/strict";
import type { Database, Queryable } from "../../src/db/database.js";
import { bearer, type SeededOrg, type TestApp } from "./harness.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";

export const DSR = "/api/v1/dsr";
export const GRIEVANCES = "/api/v1/grievances";
export const NOMINATION = "/api/v1/nomination";
export const STAFF_DSR = "/api/v1/staff/dsr";
export const STAFF_GRIEVANCES = "/api/v1/staff/grievances";
export const SETTINGS = "/api/v1/staff/rights/settings";
export const DAY = 86_400_000;

export type DsrBody = {
  requestId: string;
  type: string;
  status: string;
  dueAt: number;
  requestDetails?: string;
  organizationId: string;
  createdAt: number;
  externalId: string;
  responsePayload?: unknown;
  closedAt?: number;
  dueState: string;
};

export type GrievanceBody = {
  grievanceId: string;
  subject: string;
  description: string;
  status: string;
  dueAt: number;
  respondedAt?: number;
  response?: string;
  organizationId: string;
  createdAt: number;
  externalId: string;
  closedAt?: number;
  dueState: string;
};

export type TransitionBody = {
  from: string | null;
  to: string;
  actorKind: string;
  actorId: string | null;
  reason: string | null;
  at: number;
};

/** A principal access token for `externalId` at the seeded organisation. */
export async function principalToken(t: TestApp, seeded: SeededOrg, externalId: string): Promise<string> {
  const res = await t.request({
    method: "POST",
    url: "/api/v1/auth/broker-token",
    headers: bearer(seeded.apiKey),
    payload: { externalId },
  });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { accessToken: string }).accessToken;
}

export async function fileDsr(
  t: TestApp,
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<DsrBody> {
  const res = await t.request({
    method: "POST",
    url: DSR,
    headers: { ...bearer(token), ...headers },
    payload: body,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as DsrBody;
}

export async function fileGrievance(
  t: TestApp,
  token: string,
  body: Record<string, unknown>,
): Promise<GrievanceBody> {
  const res = await t.request({ method: "POST", url: GRIEVANCES, headers: bearer(token), payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as GrievanceBody;
}

export async function outboxEvents(
  db: Queryable,
  organizationId: string,
  eventType?: string,
): Promise<{ eventType: string; payload: Record<string, unknown> }[]> {
  const rows = await db.query<{ event_type: string; payload: Record<string, unknown> }>(
    `SELECT event_type, payload FROM webhook_events WHERE organization_id = $1 AND ($2::text IS NULL OR event_type = $2)
      ORDER BY created_at, event_id`,
    [organizationId, eventType ?? null],
  );
  return rows.map((r) => ({ eventType: r.event_type, payload: r.payload }));
}

export async function auditEntriesFor(
  db: Database,
  organizationId: string,
  subjectId: string,
): Promise<{ entryType: string; payload: Record<string, unknown> }[]> {
  await linkQueuedOf(db, organizationId, Date.now());
  const rows = await db.query<{ entry_type: string; payload: string }>(
    "SELECT entry_type, payload FROM audit_entries WHERE organization_id = $1 AND subject_id = $2 ORDER BY seq",
    [organizationId, subjectId],
  );
  return rows.map((r) => ({
    entryType: r.entry_type,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
  }));
}
