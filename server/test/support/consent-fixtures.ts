// Shared set-up of the consent, gate, audit and idempotency tests: notices in every state,
// principals with tokens and emails, consents given through the public routes.
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { announceInvalidation } from "../../src/db/invalidation.js";
import { randomBase62 } from "../../src/lib/ids.js";
import { mintSignedTestToken, signedTestTokenKey } from "../../src/consent/parental-verification.js";
import { archiveNotice as archiveNoticeVersion, createNotice } from "../../src/notices/lifecycle.js";
import { parseDraftContent, parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { bearer, type SeededOrg, type TestApp } from "./harness.js";

export interface Itemized {
  purpose: string;
  personalDataDescription: string;
  tracking?: boolean;
}

export const DEFAULT_ITEMIZED: Itemized[] = [
  { purpose: "Account", personalDataDescription: "Name and email, to run your account." },
  { purpose: "Marketing", personalDataDescription: "Email, to send offers." },
  { purpose: "Newsletter", personalDataDescription: "Email, to send the monthly newsletter." },
];

/** Publishes a notice (a new version when `key` was published before with other content). */
export async function publishTestNotice(
  t: TestApp,
  seeded: SeededOrg,
  options: { key?: string; itemized?: Itemized[]; title?: string } = {},
): Promise<{ noticeId: string; version: number }> {
  const draft = parseNoticeDraft({
    key: options.key ?? "default",
    itemized: options.itemized ?? DEFAULT_ITEMIZED,
    content: {
      en: { title: options.title ?? "How we use your data", body: "Only for the purposes listed." },
    },
  });
  return publishNotice(t.db, seeded.org.organizationId, draft, t.clock.now());
}

/** A notice that was never published: it has a draft only. */
export async function insertDraftNotice(t: TestApp, seeded: SeededOrg): Promise<string> {
  const draft = await createNotice(
    t.db,
    seeded.org.organizationId,
    {
      key: `draft-${randomBase62(6).toLowerCase()}`,
      draft: parseDraftContent({ itemized: DEFAULT_ITEMIZED, content: { en: { title: "t", body: "b" } } }),
    },
    null,
    t.clock.now(),
  );
  return draft.noticeId;
}

/** Archives a notice: its published version is withdrawn from view. */
export async function archiveNotice(t: TestApp, seeded: SeededOrg, noticeId: string): Promise<void> {
  await archiveNoticeVersion(t.db, seeded.org.organizationId, noticeId, null, t.clock.now());
}

/**
 * Replaces the organisation's settings document in SQL and announces the change, as the settings
 * route does, so the instances' cached settings (consent/settings.ts) follow it.
 */
export async function setOrgSettings(t: TestApp, seeded: SeededOrg, settings: Record<string, unknown>) {
  await t.db.transaction(async (tx) => {
    await tx.query("UPDATE organizations SET settings = $2::jsonb WHERE organization_id = $1", [
      seeded.org.organizationId,
      JSON.stringify(settings),
    ]);
    await announceInvalidation(tx, {
      topic: "organization_settings",
      organizationId: seeded.org.organizationId,
    });
  });
}

export function anonymousConsent(
  t: TestApp,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  remoteAddress?: string,
): Promise<LightMyRequestResponse> {
  return t.request({
    method: "POST",
    url: "/api/v1/consents/anonymous",
    payload: body,
    headers,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

/** A principal (created on first sight) and its access token; `email` associates an address. */
export async function principal(
  t: TestApp,
  seeded: SeededOrg,
  externalId = `user-${randomBase62(8)}`,
  email?: string,
): Promise<{ externalId: string; accessToken: string; principalId: string }> {
  const res = await t.request({
    method: "POST",
    url: "/api/v1/auth/broker-token",
    headers: bearer(seeded.apiKey),
    payload: email === undefined ? { externalId } : { externalId, email },
  });
  assert.equal(res.statusCode, 201, res.body);
  const [row] = await t.db.query<{ principal_id: string }>(
    "SELECT principal_id FROM principals WHERE organization_id = $1 AND external_id = $2",
    [seeded.org.organizationId, externalId],
  );
  return {
    externalId,
    accessToken: (res.json() as { accessToken: string }).accessToken,
    principalId: row!.principal_id,
  };
}

export function recordConsent(
  t: TestApp,
  seeded: SeededOrg,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.request({
    method: "POST",
    url: "/cm/v1/consent",
    headers: { ...bearer(seeded.apiKey), ...headers },
    payload: body,
  });
}

/** A test parental-verification token for the principal, as `guard parental test-token` mints. */
export function parentalToken(
  t: TestApp,
  seeded: SeededOrg,
  externalId: string,
  options: { expiresAt?: number; parentReference?: string } = {},
): string {
  return mintSignedTestToken(signedTestTokenKey(t.config.tokenSecret), {
    organizationId: seeded.org.organizationId,
    externalId,
    parentReference: options.parentReference ?? "parent-ref-1",
    expiresAt: options.expiresAt ?? t.clock.now() + 600_000,
  });
}

export async function webhookEvents(
  t: TestApp,
  seeded: SeededOrg,
): Promise<{ event_type: string; payload: Record<string, unknown> }[]> {
  return t.db.query(
    "SELECT event_type, payload FROM webhook_events WHERE organization_id = $1 ORDER BY created_at, event_id",
    [seeded.org.organizationId],
  );
}

export async function countRows(t: TestApp, table: string, organizationId: string): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE organization_id = $1`,
    [organizationId],
  );
  return row!.n;
}
