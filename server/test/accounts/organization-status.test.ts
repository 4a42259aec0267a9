// Disabling an organisation (POST /api/v1/operator/organizations/{id}/disable and /enable): while
// disabled, every credential of the organisation is refused (403) on the cached path as on the
// first read, on this instance and on another one; staff cannot sign in; its public routes answer
// the 404 an unknown organisation gets; its webhook deliveries stay queued; its records are all
// kept. Enabling restores everything; both are idempotent and recorded on its audit chain; another
// organisation is never touched; bad input is a 400 naming the field, an unknown id a 404.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import { eventually } from "../support/polling.js";
import { anonymousConsent, principal, publishTestNotice } from "../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startSecondInstance,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { readChainPage } from "../../src/audit/store.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { SecretBox } from "../../src/lib/secret-box.js";
import { createEndpoint } from "../../src/webhooks/endpoints.js";
import { enqueueEvent } from "../../src/webhooks/outbox.js";
import { claimDueDeliveries } from "../../src/webhooks/worker.js";

const TOKEN = "operator-token-for-tests-0123456789abcdef";
const operator = bearer(TOKEN);
const ORGS = "/api/v1/operator/organizations";

type OperatorOrganization = {
  organizationId: string;
  slug: string;
  disabledAt: number | null;
  disabledReason: string | null;
  disabledBy: string | null;
};
type StatusChange = { organization: OperatorOrganization; changed: boolean };

describe("disabling an organisation", () => {
  let t: TestApp;
  let second: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;
  let consentId: string;
  let accessToken: string;
  let session: Record<string, string>;
  let otherSession: Record<string, string>;

  before(async () => {
    t = await startTestApp({ operatorTokenDigest: createHash("sha256").update(TOKEN).digest() });
    second = await startSecondInstance(t);
    acme = await seedOrganization(t, "acme");
    other = await seedOrganization(t, "other");
    noticeId = (await publishTestNotice(t, acme)).noticeId;
    await publishTestNotice(t, other);
    const given = await anonymousConsent(t, {
      organizationId: acme.org.organizationId,
      noticeId,
      purpose: "Account",
      dataTypes: ["email"],
      anonymousId: "guest-before",
    });
    assert.equal(given.statusCode, 201, given.body);
    consentId = given.json().consentId as string;
    accessToken = (await principal(t, acme, "user-1")).accessToken;
    session = (await signIn(t, acme, "admin")).headers;
    otherSession = (await signIn(t, other, "admin")).headers;
  });
  after(async () => {
    await second.close();
    await t.close();
  });

  const disable = (organizationId: string, payload: Record<string, unknown>, app = t) =>
    app.request({ method: "POST", url: `${ORGS}/${organizationId}/disable`, headers: operator, payload });
  const enable = (organizationId: string, payload: Record<string, unknown> = {}, app = t) =>
    app.request({ method: "POST", url: `${ORGS}/${organizationId}/enable`, headers: operator, payload });

  const keyCall = (org: SeededOrg, app: TestApp) =>
    app.request({ method: "GET", url: "/api/v1/staff/notifications", headers: bearer(org.apiKey) });

  /** What each kind of caller of `org` gets, as status codes, on `app`. */
  async function statuses(org: SeededOrg, app: TestApp, staff: Record<string, string>) {
    const verify = () =>
      app.request({
        method: "POST",
        url: "/api/v1/consent/verify",
        headers: bearer(org.apiKey),
        payload: { consentId: org === acme ? consentId : "cns_unknown0000000" },
      });
    // Twice: the second answer comes from the instance's caches (the synchronous path).
    await verify();
    return {
      gate: (await verify()).statusCode,
      serviceKey: (
        await app.request({ method: "GET", url: "/api/v1/staff/notifications", headers: bearer(org.apiKey) })
      ).statusCode,
      staffSession: (await app.request({ method: "GET", url: "/api/v1/staff/session", headers: staff }))
        .statusCode,
      principalToken:
        org === acme
          ? (await app.request({ method: "GET", url: "/api/v1/dsr", headers: bearer(accessToken) }))
              .statusCode
          : 200,
      publicSlug: (await app.request({ method: "GET", url: `/api/v1/org/${org.org.slug}` })).statusCode,
      banner: (
        await app.request({ method: "GET", url: `/api/v1/org/${org.org.organizationId}/banner-config` })
      ).statusCode,
      notices: (await app.request({ method: "GET", url: `/api/v1/org/${org.org.organizationId}/notices` }))
        .statusCode,
    };
  }
  const ALL_WORK = {
    gate: 200,
    serviceKey: 200,
    staffSession: 200,
    principalToken: 200,
    publicSlug: 200,
    banner: 200,
    notices: 200,
  };
  const REFUSED = {
    gate: 403,
    serviceKey: 403,
    staffSession: 403,
    principalToken: 403,
    publicSlug: 404,
    banner: 404,
    notices: 404,
  };

  /** The organisation's status entries on its chain, oldest first. */
  async function statusEntries(organizationId: string) {
    await linkQueuedOf(t.db, organizationId, t.clock.now());
    return (await readChainPage(t.db, organizationId, 1, 10_000))
      .filter(
        (e) => e.entryType.startsWith("organization.") && e.entryType !== "organization.settings_changed",
      )
      .map((e) => ({ entryType: e.entryType, payload: JSON.parse(e.payload) as Record<string, unknown> }));
  }

  async function counts(organizationId: string) {
    const [row] = await t.db.query<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM consents WHERE organization_id = $1) AS consents,
              (SELECT count(*)::int FROM notices WHERE organization_id = $1) AS notices,
              (SELECT count(*)::int FROM principals WHERE organization_id = $1) AS principals,
              (SELECT count(*)::int FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL) AS keys,
              (SELECT count(*)::int FROM staff_sessions WHERE organization_id = $1 AND ended_at IS NULL) AS sessions`,
      [organizationId],
    );
    return row!;
  }

  test("disabled: keys, tokens and sessions 403, public routes 404, on both instances; the data stays", async () => {
    // Warm both instances' caches first, so the refusal must come through the invalidation.
    assert.deepEqual(await statuses(acme, t, session), ALL_WORK);
    assert.deepEqual(await statuses(acme, second, session), ALL_WORK);
    const before = await counts(acme.org.organizationId);

    t.clock.advance(1000);
    const res = await disable(acme.org.organizationId, {
      reason: "  Invoice unpaid since October  ",
      by: "ops@host",
    });
    assert.equal(res.statusCode, 200, res.body);
    const change = res.json() as StatusChange;
    assert.equal(change.changed, true);
    assert.deepEqual(
      {
        disabledAt: change.organization.disabledAt,
        reason: change.organization.disabledReason,
        by: change.organization.disabledBy,
      },
      { disabledAt: t.clock.now(), reason: "Invoice unpaid since October", by: "operator:ops@host" },
    );

    assert.deepEqual(await statuses(acme, t, session), REFUSED, "refused at once by the disabling instance");
    // The other instance drops its cache when the notification arrives (on PostgreSQL, after COMMIT).
    assert.ok(await eventually(async () => (await keyCall(acme, second)).statusCode === 403));
    assert.deepEqual(await statuses(acme, second, session), REFUSED);
    assert.deepEqual(
      await counts(acme.org.organizationId),
      before,
      "nothing of the organisation was deleted",
    );

    const refused = await t.request({
      method: "GET",
      url: "/api/v1/staff/notifications",
      headers: bearer(acme.apiKey),
    });
    assertApiError(refused, 403, "FORBIDDEN", { message: /disabled by the deployment's operator/ });
    assertApiError(await t.request({ method: "GET", url: `/api/v1/org/acme` }), 404, "NOT_FOUND", {
      message: /^No organisation has this slug$/,
    });
  });

  test("disabled: staff sign-in refused after the password (a wrong one is still 401); guests cannot consent", async () => {
    const signInWith = (password: string) =>
      t.request({
        method: "POST",
        url: "/api/v1/staff/session",
        payload: { organizationSlug: "acme", email: acme.staff.dpo.email, password },
      });
    assertApiError(await signInWith(acme.staff.dpo.password), 403, "FORBIDDEN");
    assertApiError(await signInWith("not the password at all"), 401, "UNAUTHORIZED");
    const consent = await anonymousConsent(t, {
      organizationId: acme.org.organizationId,
      noticeId,
      purpose: "Marketing",
      dataTypes: ["email"],
      anonymousId: "guest-during",
    });
    assertApiError(consent, 404, "NOT_FOUND", { message: /^No such notice in this organisation$/ });
    // Withdrawing stays possible (DPDP s.6(4)), and is recorded.
    const withdrawn = await t.request({
      method: "POST",
      url: "/api/v1/consents/anonymous/withdraw",
      payload: {
        organizationId: acme.org.organizationId,
        anonymousId: "guest-before",
        noticeId,
        purpose: "Account",
      },
    });
    assert.equal(withdrawn.statusCode, 200, withdrawn.body);
    const [row] = await t.db.query<{ withdrawn_at: number | null }>(
      "SELECT withdrawn_at FROM consents WHERE organization_id = $1 AND consent_id = $2",
      [acme.org.organizationId, consentId],
    );
    assert.equal(typeof row!.withdrawn_at, "number");
    assertApiError(await t.request({ method: "GET", url: `/api/v1/notices/${noticeId}` }), 404, "NOT_FOUND");
  });

  test("another organisation is untouched", async () => {
    assert.deepEqual(await statuses(other, t, otherSession), { ...ALL_WORK, gate: 404 });
    assert.deepEqual(await statuses(other, second, otherSession), { ...ALL_WORK, gate: 404 });
  });

  test("disabling again changes nothing: the first time, reason and author stay, nothing is recorded", async () => {
    t.clock.advance(5000);
    const res = await disable(acme.org.organizationId, { reason: "another reason" });
    assert.equal(res.statusCode, 200, res.body);
    const change = res.json() as StatusChange;
    assert.equal(change.changed, false);
    assert.equal(change.organization.disabledReason, "Invoice unpaid since October");
    assert.equal(change.organization.disabledBy, "operator:ops@host");
    assert.ok(change.organization.disabledAt! < t.clock.now());
    assert.deepEqual(
      (await statusEntries(acme.org.organizationId)).map((e) => e.entryType),
      ["organization.disabled"],
    );
  });

  test("the operator list shows the state", async () => {
    const res = await t.request({ method: "GET", url: ORGS, headers: operator });
    assert.equal(res.statusCode, 200, res.body);
    const listed = (res.json() as { organizations: OperatorOrganization[] }).organizations;
    const bySlug = new Map(listed.map((o) => [o.slug, o]));
    assert.equal(bySlug.get("acme")!.disabledReason, "Invoice unpaid since October");
    assert.equal(typeof bySlug.get("acme")!.disabledAt, "number");
    assert.deepEqual(
      {
        at: bySlug.get("other")!.disabledAt,
        reason: bySlug.get("other")!.disabledReason,
        by: bySlug.get("other")!.disabledBy,
      },
      { at: null, reason: null, by: null },
    );
  });

  test("webhook deliveries of a disabled organisation stay queued and go out once it is enabled", async () => {
    const box = new SecretBox(t.config.secretsKey);
    const now = t.clock.now();
    for (const org of [acme, other]) {
      await createEndpoint(
        t.db,
        box,
        {
          organizationId: org.org.organizationId,
          url: "http://127.0.0.1:9/hook",
          events: ["dsr.created"],
          createdBy: null,
        },
        { now, production: false },
      );
      await enqueueEvent(
        t.db,
        {
          organizationId: org.org.organizationId,
          eventType: "dsr.created",
          payload: { requestId: "dsr_abcdefgh1234" },
        },
        now,
      );
    }
    const claimed = await claimDueDeliveries(t.db, { now, limit: 10, leaseMs: 60_000 });
    assert.deepEqual(
      claimed.map((d) => d.organizationId),
      [other.org.organizationId],
    );
    const [queued] = await t.db.query<{ status: string; attempts: number }>(
      "SELECT status, attempts FROM webhook_deliveries WHERE organization_id = $1",
      [acme.org.organizationId],
    );
    assert.deepEqual({ ...queued }, { status: "pending", attempts: 0 });

    const enabled = await enable(acme.org.organizationId);
    assert.equal(enabled.statusCode, 200, enabled.body);
    const after = await claimDueDeliveries(t.db, { now, limit: 10, leaseMs: 60_000 });
    assert.deepEqual(
      after.map((d) => d.organizationId),
      [acme.org.organizationId],
    );
  });

  test("enabled again: everything works as before, on both instances, the old session included", async () => {
    assert.deepEqual(await statuses(acme, t, session), ALL_WORK);
    assert.ok(await eventually(async () => (await keyCall(acme, second)).statusCode === 200));
    assert.deepEqual(await statuses(acme, second, session), ALL_WORK);
    const signedIn = await t.request({
      method: "POST",
      url: "/api/v1/staff/session",
      payload: { organizationSlug: "acme", email: acme.staff.dpo.email, password: acme.staff.dpo.password },
    });
    assert.equal(signedIn.statusCode, 201, signedIn.body);

    const again = await enable(acme.org.organizationId, { reason: "paid" });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(
      {
        changed: (again.json() as StatusChange).changed,
        at: (again.json() as StatusChange).organization.disabledAt,
      },
      { changed: false, at: null },
    );
  });

  test("both changes are on the organisation's audit chain, with who and why, and it verifies", async () => {
    const entries = await statusEntries(acme.org.organizationId);
    assert.deepEqual(
      entries.map((e) => [e.entryType, e.payload.by, e.payload.reason]),
      [
        ["organization.disabled", "operator:ops@host", "Invoice unpaid since October"],
        ["organization.enabled", "operator", null],
      ],
    );
    const report = await verifyAuditChain(t.db, acme.org.organizationId, t.config.auditKeys, {
      now: t.clock.now(),
    });
    assert.equal(report.intact, true, JSON.stringify(report.problems));

    // A disabling made in SQL, behind the chain's back, is found.
    await t.db.query(
      "UPDATE organizations SET disabled_at = 1, disabled_reason = 'x', disabled_by = 'y' WHERE organization_id = $1",
      [other.org.organizationId],
    );
    try {
      const tampered = await verifyAuditChain(t.db, other.org.organizationId, t.config.auditKeys, {
        now: t.clock.now(),
      });
      assert.equal(tampered.intact, false);
      assert.ok(
        tampered.problems.some(
          (p) => p.table === "organizations" && /disabled_at is 1; the chain gives null/.test(p.reason),
        ),
        JSON.stringify(tampered.problems),
      );
    } finally {
      await t.db.query(
        "UPDATE organizations SET disabled_at = NULL, disabled_reason = NULL, disabled_by = NULL WHERE organization_id = $1",
        [other.org.organizationId],
      );
    }
  });

  test("bad input: a missing or blank reason names it, an unknown id is 404, a malformed one 400, no token 401", async () => {
    assertApiError(await disable(acme.org.organizationId, {}), 400, "VALIDATION_ERROR", { field: "reason" });
    assertApiError(await disable(acme.org.organizationId, { reason: "   " }), 400, "VALIDATION_ERROR", {
      field: "reason",
    });
    assertApiError(
      await disable(acme.org.organizationId, { reason: "x".repeat(501) }),
      400,
      "VALIDATION_ERROR",
      {
        field: "reason",
      },
    );
    assertApiError(await enable(acme.org.organizationId, { by: "" }), 400, "VALIDATION_ERROR", {
      field: "by",
    });
    assertApiError(await disable("org_doesnotexist0000", { reason: "x" }), 404, "NOT_FOUND");
    assertApiError(await enable("org_doesnotexist0000"), 404, "NOT_FOUND");
    assertApiError(await disable("not an id", { reason: "x" }), 400, "VALIDATION_ERROR", {
      field: "organizationId",
    });
    assertApiError(
      await t.request({
        method: "POST",
        url: `${ORGS}/${acme.org.organizationId}/disable`,
        headers: bearer(acme.apiKey),
        payload: { reason: "x" },
      }),
      401,
      "UNAUTHORIZED",
    );
    // None of these changed anything.
    const listed = await t.request({ method: "GET", url: ORGS, headers: operator });
    assert.ok(
      (listed.json() as { organizations: OperatorOrganization[] }).organizations.every(
        (o) => o.disabledAt === null,
      ),
    );
  });
});
