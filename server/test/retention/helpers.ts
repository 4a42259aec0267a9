// Shared set-up of the retention tests: an organisation with a published notice, principals with
// consents given (and withdrawn) through the consent rules, and the staff and partner calls.
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { giveConsent, withdrawConsent } from "../../src/consent/consents.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { sweepRetention } from "../../src/retention/sweep.js";
import type { Notifier, PrincipalNotification } from "../../src/notifications/notifier.js";
import { WebhookRelayNotifier } from "../../src/notifications/notifier.js";
import type { Queryable } from "../../src/db/database.js";
import { publishTestNotice, principal } from "../support/consent-fixtures.js";
import { bearer, type SeededOrg, type TestApp } from "../support/harness.js";

export const HOUR = 3_600_000;
export const DAY = 86_400_000;
export const POLICIES = "/api/v1/staff/retention/policies";
export const HOLDS = "/api/v1/staff/retention/holds";
export const EVENTS = "/api/v1/staff/retention/events";
export const ERASURES = "/api/v1/staff/retention/erasures";
export const DUE = "/api/v1/retention/due";
export const executedUrl = (id: string) => `/api/v1/retention/erasures/${id}/executed`;

/** The shipped relay notifier, remembering what it was asked to send. */
export class RecordingNotifier implements Notifier {
  readonly sent: PrincipalNotification[] = [];
  private readonly relay = new WebhookRelayNotifier();
  async notify(tx: Queryable, notification: PrincipalNotification, now: number) {
    const answer = await this.relay.notify(tx, notification, now);
    if (answer.created) this.sent.push(notification);
    return answer;
  }
}

/** One sweep at the test clock's now: what it scheduled, notified and cancelled. */
export async function sweep(t: TestApp, notifier: Notifier) {
  const { scheduled, notified, cancelled } = await sweepRetention(t.db, notifier, t.clock.now());
  return { scheduled, notified, cancelled };
}

export interface Principal {
  externalId: string;
  principalId: string;
  accessToken: string;
}

/** A principal who consented to `purpose` under the organisation's notice, now. */
export async function consentingPrincipal(
  t: TestApp,
  seeded: SeededOrg,
  notice: { noticeId: string; version: number },
  purpose: string,
  externalId?: string,
): Promise<Principal & { consentId: string }> {
  const p = await principal(t, seeded, externalId);
  const consent = await t.db.transaction((tx) =>
    giveConsent(
      tx,
      { auditKeys: t.config.auditKeys },
      {
        organizationId: seeded.org.organizationId,
        holder: { kind: "principal", principalId: p.principalId, externalId: p.externalId },
        notice,
        purpose,
        dataTypes: ["email"],
        source: "direct",
      },
      t.clock.now(),
    ),
  );
  return { ...p, consentId: consent.consentId };
}

export async function withdraw(t: TestApp, seeded: SeededOrg, consentId: string): Promise<void> {
  await t.db.transaction((tx) =>
    withdrawConsent(tx, { organizationId: seeded.org.organizationId, consentId }, t.clock.now()),
  );
}

export const publishNotice = (t: TestApp, seeded: SeededOrg) => publishTestNotice(t, seeded);

export function json<T>(res: LightMyRequestResponse, status = 200): T {
  assert.equal(res.statusCode, status, res.body);
  return res.json() as T;
}

export const svc = (seeded: SeededOrg) => bearer(seeded.apiKey);

export interface PolicyBody {
  policyId: string;
  purpose: string;
  anchorEvent: string;
  durationDays: number;
  noticeHours: number;
  windowFloorAt: number | null;
  preset: string | null;
  archivedAt: number | null;
}

export interface ErasureBody {
  scheduledErasureId: string;
  policyId: string;
  userId: string;
  anchorAt: number;
  scheduledFor: number;
  status: string;
  preNotificationSentAt: number | null;
  dueAt: number | null;
  cancelReason: string | null;
  cancelledBy: string | null;
  cancelNote: string | null;
  executedAt: number | null;
}

export interface DueBody {
  due: {
    scheduledErasureId: string;
    userId: string;
    scheduledFor: number;
    reason: string;
    preNotificationSentAt?: number;
  }[];
  nextCursor: string | null;
}

export async function createPolicy(
  t: TestApp,
  seeded: SeededOrg,
  payload: Record<string, unknown>,
): Promise<PolicyBody> {
  return json<PolicyBody>(
    await t.request({ method: "POST", url: POLICIES, headers: svc(seeded), payload }),
    201,
  );
}

export async function erasuresOf(t: TestApp, seeded: SeededOrg, query = ""): Promise<ErasureBody[]> {
  return json<{ erasures: ErasureBody[] }>(
    await t.request({ method: "GET", url: `${ERASURES}${query}`, headers: svc(seeded) }),
  ).erasures;
}

export async function dueOf(t: TestApp, seeded: SeededOrg): Promise<DueBody["due"]> {
  return json<DueBody>(await t.request({ method: "GET", url: DUE, headers: svc(seeded) })).due;
}

export async function chainTypes(t: TestApp, organizationId: string, subjectId: string): Promise<string[]> {
  await linkQueuedOf(t.db, organizationId, t.clock.now());
  const rows = await t.db.query<{ entry_type: string }>(
    "SELECT entry_type FROM audit_entries WHERE organization_id = $1 AND subject_id = $2 ORDER BY seq",
    [organizationId, subjectId],
  );
  return rows.map((r) => r.entry_type);
}
