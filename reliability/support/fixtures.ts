// One record of every kind an operation can name by id, created in one organisation over HTTP, and
// a valid request body for every operation that takes one. The matrix tests fill paths, queries and
// bodies from these, so a new operation that names a known kind of id is covered unchanged.
import assert from "node:assert/strict";
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { canonicalizeCaptureArtifact, signCaptureArtifact } from "@guard/contract";
import {
  bearer,
  expectStatus,
  NOTICE_DRAFT,
  publishNotice,
  type LiveServer,
  type Org,
} from "./live-server.js";

/** A record of each id kind, by the parameter or field name that carries it. */
export type Ids = Record<string, string>;

/**
 * Creates one record of each kind in `org`; free-text fields carry `marker` so a test can tell
 * whether any of this organisation's data shows up where it must not.
 */
export async function buildFixtures(server: LiveServer, org: Org, marker: string): Promise<Ids> {
  const call = (path: string, method: string, headers: Record<string, string>, body?: unknown) =>
    server.call(path, { method, headers, body });
  const ids: Ids = {};
  ids.organizationId = ids.orgId = ids.id = org.org.organizationId;
  ids.slug = org.org.slug;
  ids.apiKeyId = org.apiKeyId;
  // A viewer account besides the signed-in admin, so a change to it never ends the run's session.
  ids.staffId = expectStatus<{ account: { staffId: string } }>(
    await call("/api/v1/staff/accounts", "POST", org.staff, {
      email: `${marker}@example.com`,
      role: "viewer",
    }),
    201,
    "staff account",
  ).account.staffId;
  ids.email = org.principal.email;
  ids.externalId = org.principal.externalId;
  ids.noticeId = await publishNotice(server, org, marker);
  // A draft too, so the draft routes have something to act on.
  expectStatus(
    await call(`/api/v1/staff/notices/${ids.noticeId}/draft`, "PUT", org.staff, {
      itemized: [{ purpose: "Account", personalDataDescription: marker }],
      content: { en: { title: marker, body: marker } },
    }),
    200,
    "notice draft",
  );
  ids.endpointId = expectStatus<{ endpointId: string }>(
    await call("/api/v1/staff/webhooks", "POST", org.staff, {
      url: `http://127.0.0.1:9/${marker}`,
      events: ["consent.given", "dsr.created"],
    }),
    201,
    "webhook endpoint",
  ).endpointId;
  ids.consentId = expectStatus<{ consentId: string }>(
    await call("/cm/v1/consent", "POST", bearer(org.apiKey), {
      email: org.principal.email,
      noticeId: ids.noticeId,
      purpose: "Account",
      dataTypes: ["email"],
    }),
    201,
    "consent",
  ).consentId;
  const [delivery] = await server.db.query<{ delivery_id: string }>(
    "SELECT delivery_id FROM webhook_deliveries WHERE endpoint_id = $1 LIMIT 1",
    [ids.endpointId],
  );
  assert.ok(delivery, "the consent produced a delivery to the endpoint");
  ids.deliveryId = delivery.delivery_id;
  ids.requestId = expectStatus<{ requestId: string }>(
    await call("/api/v1/dsr", "POST", bearer(org.principal.token), {
      organizationId: org.org.organizationId,
      type: "erasure",
      details: marker,
    }),
    201,
    "DSR",
  ).requestId;
  ids.grievanceId = expectStatus<{ grievanceId: string }>(
    await call("/api/v1/grievances", "POST", bearer(org.principal.token), {
      organizationId: org.org.organizationId,
      subject: marker,
      description: marker,
    }),
    201,
    "grievance",
  ).grievanceId;
  ids.domain = `d-${randomBytes(3).toString("hex")}.example`;
  expectStatus(await call(`/api/v1/staff/domains/${ids.domain}`, "PUT", org.staff), 200, "register domain");
  expectStatus(
    await call(`/api/v1/staff/domains/${ids.domain}/banner-settings`, "PUT", org.staff, {
      bannerSettings: { texts: { en: { title: marker } } },
    }),
    200,
    "domain banner settings",
  );
  ids.appId = `com.example.app${randomBytes(3).toString("hex")}`;
  expectStatus(await call(`/api/v1/staff/apps/${ids.appId}`, "PUT", org.staff), 200, "register app");
  ids.domainGroupId = expectStatus<{ domainGroupId: string }>(
    await call("/api/v1/staff/domain-groups", "POST", org.staff, { name: marker, noticeId: ids.noticeId }),
    201,
    "domain group",
  ).domainGroupId;
  ids.anonymousId = `anon-${marker}`;
  expectStatus(
    await call(
      "/api/v1/consents/anonymous",
      "POST",
      {},
      {
        organizationId: org.org.organizationId,
        noticeId: ids.noticeId,
        purpose: "Newsletter",
        dataTypes: ["email"],
        anonymousId: ids.anonymousId,
      },
    ),
    201,
    "anonymous consent",
  );
  ids.deviceId = expectStatus<{ deviceId: string }>(
    await call("/api/v1/staff/devices", "POST", org.staff, {
      label: marker,
      channel: "agent_app",
      publicKeySpki: newDeviceKey(),
    }),
    201,
    "enrolled device",
  ).deviceId;
  ids.sessionId = await quarantinedCapture(server, org, call);
  ids.linkId = expectStatus<{ linkId: string }>(
    await call("/api/v1/offline-consent/links", "POST", bearer(org.apiKey), {
      noticeId: ids.noticeId,
      purpose: "Account",
      dataTypes: ["email"],
      label: marker,
    }),
    201,
    "offline consent link",
  ).linkId;
  return ids;
}

/**
 * A signed offline capture session of `org`, quarantined (its device clock is 30 days off) so the
 * staff review routes have one to act on; its device is enrolled here with a key kept for signing.
 */
async function quarantinedCapture(
  server: LiveServer,
  org: Org,
  call: (
    path: string,
    method: string,
    headers: Record<string, string>,
    body?: unknown,
  ) => ReturnType<LiveServer["call"]>,
): Promise<string> {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const deviceId = expectStatus<{ deviceId: string }>(
    await call("/api/v1/staff/devices", "POST", org.staff, {
      label: "capture fixture",
      channel: "agent_app",
      publicKeySpki: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
    }),
    201,
    "capture device",
  ).deviceId;
  const [notice] = await server.db.query<{ notice_id: string; version: number }>(
    "SELECT notice_id, version FROM notice_versions WHERE organization_id = $1 AND status = 'published' LIMIT 1",
    [org.org.organizationId],
  );
  assert.ok(notice, "the organisation has a published notice");
  const session = {
    clientSessionId: randomUUID(),
    deviceId,
    noticeId: notice.notice_id,
    noticeVersion: Number(notice.version),
    noticeLocale: "en",
    channel: "agent_app" as const,
    capturedAtClient: Date.now() - 30 * 24 * 3_600_000,
    dataTypes: ["email"],
    purposeGrants: [
      {
        purposeKey: "Account",
        purposeLabel: "Account",
        category: "essential" as const,
        status: "opt_in" as const,
      },
    ],
  };
  const canonical = canonicalizeCaptureArtifact({ ...session, organizationId: org.org.organizationId });
  const synced = expectStatus<{ results: { status: string }[] }>(
    await call("/api/v1/offline/captures", "POST", bearer(org.apiKey), {
      sessions: [{ ...session, deviceSignature: signCaptureArtifact(privateKey, canonical) }],
    }),
    200,
    "offline capture",
  );
  assert.equal(synced.results[0]?.status, "quarantined", "the fixture session is quarantined");
  const [stored] = await server.db.query<{ session_id: string }>(
    "SELECT session_id FROM offline_capture_sessions WHERE organization_id = $1 AND client_session_id = $2",
    [org.org.organizationId, session.clientSessionId],
  );
  return stored!.session_id;
}

/** A fresh P-256 public key as a device enrols it: standard base64 of the SPKI DER. */
export const newDeviceKey = (): string =>
  generateKeyPairSync("ec", { namedCurve: "prime256v1" })
    .publicKey.export({ type: "spki", format: "der" })
    .toString("base64");

/** A valid request body per operation, built from the ids it should name. */
export const SAMPLE_BODIES: Record<string, (ids: Ids) => Record<string, unknown>> = {
  createStaffSession: (ids) => ({
    organizationSlug: ids.slug,
    email: "nobody@example.com",
    password: "wrong",
  }),
  createApiKey: () => ({ name: "sample" }),
  createStaffAccount: () => ({
    email: `staff-${randomBytes(4).toString("hex")}@example.com`,
    role: "viewer",
  }),
  updateStaffAccount: () => ({ role: "dpo" }),
  createWebhookEndpoint: () => ({ url: "http://127.0.0.1:9/hooks", events: ["consent.given"] }),
  updateWebhookEndpoint: () => ({ enabled: false }),
  createStaffNotice: () => ({ key: `sample-${randomBytes(3).toString("hex")}`, ...NOTICE_DRAFT }),
  saveNoticeDraft: () => ({
    itemized: [{ purpose: "Account", personalDataDescription: "Email" }],
    content: { en: { title: "t", body: "b" } },
  }),
  saveDefaultBannerSettings: () => ({ bannerSettings: { theme: "dark", texts: { en: { title: "t" } } } }),
  saveDomainBannerSettings: () => ({ bannerSettings: { theme: "dark" } }),
  saveAppBannerSettings: () => ({ bannerSettings: { theme: "dark" } }),
  createDomainGroup: (ids) => ({ name: "group", noticeId: ids.noticeId }),
  updateDomainGroup: (ids) => ({ name: "group", noticeId: ids.noticeId }),
  setCapabilities: () => ({ capabilities: {} }),
  staffUpdateOrganizationSettings: () => ({ blockTrackingForChildren: true }),
  brokerToken: (ids) => ({ externalId: ids.externalId, email: ids.email }),
  giveConsentAnonymous: (ids) => ({
    organizationId: ids.organizationId,
    noticeId: ids.noticeId,
    purpose: "Account",
    dataTypes: ["email"],
    anonymousId: `sample-${randomBytes(3).toString("hex")}`,
  }),
  withdrawConsentAnonymous: (ids) => ({
    organizationId: ids.organizationId,
    noticeId: ids.noticeId,
    purpose: "Account",
    anonymousId: ids.anonymousId,
  }),
  recordIvrConsentArtifact: (ids) => ({
    noticeId: ids.noticeId,
    partnerCallId: `call-${randomBytes(4).toString("hex")}`,
    audioRecordingUri: "https://recordings.partner.example/call.wav",
    locale: "en",
    dtmfSequence: "1",
    callerNumberHash: "partner-hash",
    capturedAt: 1_700_000_000_000,
    partnerSignature: "partner-signature",
    purpose: "Account",
    dataTypes: ["email"],
  }),
  // A well-formed token that stands for nothing: 404, and nothing of any organisation changes.
  withdrawConsentByToken: () => ({ withdrawalToken: `wdt_${"0".repeat(32)}` }),
  linkAnonymousConsent: (ids) => ({ anonymousId: ids.anonymousId }),
  recordConsent: (ids) => ({
    email: ids.email,
    noticeId: ids.noticeId,
    purpose: "Newsletter",
    dataTypes: ["email"],
  }),
  receiveCmSignal: () => ({
    cmRegistryId: "meity-cm-007",
    cmName: "Sahmati CM",
    principalTokenFromCm: "cm-token",
    purposes: ["Account"],
    signalType: "consent_given",
  }),
  createDsrRequest: (ids) => ({ organizationId: ids.organizationId, type: "summary" }),
  createGrievance: (ids) => ({ organizationId: ids.organizationId, subject: "s", description: "d" }),
  upsertNomination: () => ({ nomineeName: "Asha", nomineeContact: "asha@example.com" }),
  verifyParent: () => ({ tokenFromProvider: "not-a-token" }),
  verifyConsentGate: (ids) => ({ consentId: ids.consentId }),
  createPosConsentRequest: (ids) => ({
    noticeId: ids.noticeId,
    purpose: "Account",
    dataTypes: ["email"],
    phone: "+91 98765 43210",
  }),
  closePosConsentRequest: () => ({ note: "Called the customer; no consent wanted." }),
  staffUpdateDsrStatus: () => ({ status: "in_progress" }),
  staffRejectDsrWithStatutoryBasis: () => ({ statute: "Income-tax Act, 1961", citation: "s. 44AA" }),
  staffRespondToGrievance: () => ({ status: "resolved", response: "done" }),
  staffUpdateRightsSettings: () => ({ dsrResponseDays: 30 }),
  createOfflineConsentLink: (ids) => ({ noticeId: ids.noticeId, purpose: "Account", dataTypes: ["email"] }),
  enrollDevice: () => ({ label: "sample device", channel: "agent_app", publicKeySpki: newDeviceKey() }),
  revokeDevice: () => ({ reason: "sample revocation" }),
  releaseOfflineCapture: () => ({ note: "sample release" }),
  rejectOfflineCapture: () => ({ note: "sample rejection" }),
};
