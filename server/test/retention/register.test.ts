// The retention register's staff and partner routes: policies (presets, RoPA activities, changes,
// archiving), validation naming the field, roles, tenant isolation (another organisation's ids are
// 404), the statutory DSR denial checked against the register, and `guard audit verify` finding a
// scheduled erasure or a policy altered in SQL.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { setCapabilities } from "../../src/capabilities/capabilities.js";
import { assertApiError } from "../support/api-error.js";
import { seedOrganization, signIn, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { fileDsr, principalToken, STAFF_DSR } from "../support/rights-helpers.js";
import {
  consentingPrincipal,
  createPolicy,
  DAY,
  ERASURES,
  EVENTS,
  executedUrl,
  HOLDS,
  HOUR,
  json,
  POLICIES,
  publishNotice,
  RecordingNotifier,
  svc,
  sweep,
  type ErasureBody,
  type PolicyBody,
} from "./helpers.js";

describe("retention: the register's routes", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let other: SeededOrg;
  let notice: { noticeId: string; version: number };

  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    other = await seedOrganization(t);
    notice = await publishNotice(t, seeded);
  });
  after(() => t.close());

  test("bad input is 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "x", anchorEvent: "last_interaction", durationDays: 10 }, "purpose"],
      [
        {
          name: "x",
          purpose: "Account",
          activityId: "act_0000000000",
          anchorEvent: "last_interaction",
          durationDays: 10,
        },
        "purpose",
      ],
      [{ name: "x", purpose: "Account", anchorEvent: "whenever", durationDays: 10 }, "anchorEvent"],
      [{ name: "x", purpose: "Account", anchorEvent: "last_interaction" }, "durationDays"],
      [{ name: "x", purpose: "Account", anchorEvent: "last_interaction", durationDays: 0 }, "durationDays"],
      [{ name: "x", purpose: "Account", anchorEvent: "last_interaction", durationDays: 1.5 }, "durationDays"],
      [
        { name: "x", purpose: "Account", anchorEvent: "last_interaction", durationDays: 10, noticeHours: 47 },
        "noticeHours",
      ],
      [{ name: "   ", purpose: "Account", anchorEvent: "last_interaction", durationDays: 10 }, "name"],
      [{ purpose: "Account", anchorEvent: "last_interaction", durationDays: 10 }, "name"],
      [{ preset: "banking", purpose: "Account" }, "preset"],
      [{ preset: "ecommerce", purpose: "  " }, "purpose"],
      [
        {
          name: "x",
          purpose: "Account",
          anchorEvent: "last_interaction",
          durationDays: 10,
          windowFloorAt: -1,
        },
        "windowFloorAt",
      ],
    ];
    for (const [payload, field] of cases) {
      assertApiError(
        await t.request({ method: "POST", url: POLICIES, headers: svc(seeded), payload }),
        400,
        "VALIDATION_ERROR",
        { field },
      );
    }
    const p = await consentingPrincipal(t, seeded, notice, "Account");
    const holdCases: [Record<string, unknown>, string][] = [
      [{ statute: "s", citation: "c" }, "userId"],
      [{ userId: p.externalId, citation: "c" }, "statute"],
      [{ userId: p.externalId, statute: "s", citation: " " }, "citation"],
      [{ userId: p.externalId, statute: "s", citation: "c", endsAt: t.clock.now() - 1 }, "endsAt"],
    ];
    for (const [payload, field] of holdCases) {
      assertApiError(
        await t.request({ method: "POST", url: HOLDS, headers: svc(seeded), payload }),
        400,
        "VALIDATION_ERROR",
        { field },
      );
    }
    const eventCases: [Record<string, unknown>, string][] = [
      [{ userId: p.externalId, kind: "logged_in" }, "kind"],
      [{ userId: p.externalId, kind: "purpose_served" }, "purpose"],
      [{ userId: p.externalId, kind: "interaction", purpose: "Account" }, "purpose"],
      [{ userId: p.externalId, kind: "interaction", occurredAt: t.clock.now() + 60_000 }, "occurredAt"],
      [{ kind: "interaction" }, "userId"],
    ];
    for (const [payload, field] of eventCases) {
      assertApiError(
        await t.request({ method: "POST", url: EVENTS, headers: svc(seeded), payload }),
        400,
        "VALIDATION_ERROR",
        { field },
      );
    }
    for (const [query, field] of [
      ["?status=lost", "status"],
      ["?cursor=abc", "cursor"],
      ["?policyId=nope", "policyId"],
    ]) {
      assertApiError(
        await t.request({ method: "GET", url: `${ERASURES}${query}`, headers: svc(seeded) }),
        400,
        "VALIDATION_ERROR",
        { field },
      );
    }
    assertApiError(
      await t.request({ method: "POST", url: executedUrl("not-an-id"), headers: svc(seeded), payload: {} }),
      400,
      "VALIDATION_ERROR",
    );
  });

  test("policies: presets, changes, archiving; viewers read only", async () => {
    const presets = json<{ presets: { name: string; durationDays: number; noticeHours: number }[] }>(
      await t.request({ method: "GET", url: "/api/v1/staff/retention/presets", headers: svc(seeded) }),
    ).presets;
    assert.deepEqual(
      presets.map((p) => p.name),
      ["ecommerce", "online_gaming", "social_media"],
    );
    assert.ok(presets.every((p) => p.durationDays === 1096 && p.noticeHours === 48));

    const viewer = await signIn(t, seeded, "viewer");
    assertApiError(
      await t.request({
        method: "POST",
        url: POLICIES,
        headers: viewer.headers,
        payload: { preset: "ecommerce", purpose: "Account" },
      }),
      403,
      "FORBIDDEN",
    );
    const dpo = await signIn(t, seeded, "dpo");
    const created = json<PolicyBody>(
      await t.request({
        method: "POST",
        url: POLICIES,
        headers: { ...dpo.headers, "idempotency-key": "policy-1" },
        payload: { preset: "online_gaming", purpose: "Account", noticeHours: 72 },
      }),
      201,
    );
    assert.equal(created.noticeHours, 72);
    assert.equal(created.anchorEvent, "last_interaction");
    const replay = await t.request({
      method: "POST",
      url: POLICIES,
      headers: { ...dpo.headers, "idempotency-key": "policy-1" },
      payload: { preset: "online_gaming", purpose: "Account", noticeHours: 72 },
    });
    assert.equal(replay.statusCode, 201);
    assert.equal((replay.json() as PolicyBody).policyId, created.policyId);

    const url = `${POLICIES}/${created.policyId}`;
    assert.equal(
      json<PolicyBody>(await t.request({ method: "GET", url, headers: viewer.headers })).policyId,
      created.policyId,
    );
    assertApiError(
      await t.request({ method: "PATCH", url, headers: dpo.headers, payload: { noticeHours: 12 } }),
      400,
      "VALIDATION_ERROR",
      { field: "noticeHours" },
    );
    const changed = json<PolicyBody>(
      await t.request({
        method: "PATCH",
        url,
        headers: dpo.headers,
        payload: { durationDays: 400, windowFloorAt: null },
      }),
    );
    assert.equal(changed.durationDays, 400);
    assert.equal(changed.windowFloorAt, null);
    const archived = json<PolicyBody>(
      await t.request({ method: "POST", url: `${url}/archive`, headers: dpo.headers }),
    );
    assert.notEqual(archived.archivedAt, null);
    assertApiError(
      await t.request({ method: "PATCH", url, headers: dpo.headers, payload: { name: "again" } }),
      409,
      "CONFLICT",
    );
    const active = json<{ policies: PolicyBody[] }>(
      await t.request({ method: "GET", url: POLICIES, headers: viewer.headers }),
    );
    assert.ok(!active.policies.some((p) => p.policyId === created.policyId));
    const all = json<{ policies: PolicyBody[] }>(
      await t.request({ method: "GET", url: `${POLICIES}?includeArchived=true`, headers: viewer.headers }),
    );
    assert.ok(all.policies.some((p) => p.policyId === created.policyId));
  });

  test("a policy for a RoPA activity takes the activity's purpose; unknown or archived activities are refused", async () => {
    const activity = json<{ activityId: string; purpose: string }>(
      await t.request({
        method: "POST",
        url: "/api/v1/staff/ropa/activities",
        headers: svc(seeded),
        payload: {
          name: "Order fulfilment",
          purpose: "Account",
          dataCategories: ["contact"],
          legalBasis: "consent",
          storageLocation: "Mumbai",
          crossesBorder: false,
        },
      }),
      201,
    );
    const policy = await createPolicy(t, seeded, {
      name: "Orders",
      activityId: activity.activityId,
      anchorEvent: "account_closed",
      durationDays: 180,
    });
    assert.equal(policy.purpose, "Account");
    assertApiError(
      await t.request({
        method: "POST",
        url: POLICIES,
        headers: svc(other),
        payload: {
          name: "Orders",
          activityId: activity.activityId,
          anchorEvent: "account_closed",
          durationDays: 180,
        },
      }),
      404,
      "NOT_FOUND",
    );
    json(
      await t.request({
        method: "POST",
        url: `/api/v1/staff/ropa/activities/${activity.activityId}/archive`,
        headers: svc(seeded),
      }),
    );
    assertApiError(
      await t.request({
        method: "POST",
        url: POLICIES,
        headers: svc(seeded),
        payload: {
          name: "Orders",
          activityId: activity.activityId,
          anchorEvent: "account_closed",
          durationDays: 180,
        },
      }),
      400,
      "VALIDATION_ERROR",
      { field: "activityId" },
    );

    // An account closure reported by the backend starts the window.
    const p = await consentingPrincipal(t, seeded, notice, "Account");
    json(
      await t.request({
        method: "POST",
        url: EVENTS,
        headers: svc(seeded),
        payload: { userId: p.externalId, kind: "account_closed" },
      }),
      201,
    );
    const closedAt = t.clock.now();
    t.clock.advance(180 * DAY - 48 * HOUR);
    await sweep(t, new RecordingNotifier());
    const [erasure] = json<{ erasures: ErasureBody[] }>(
      await t.request({
        method: "GET",
        url: `${ERASURES}?policyId=${policy.policyId}`,
        headers: svc(seeded),
      }),
    ).erasures;
    assert.equal(erasure?.anchorAt, closedAt);
    assert.equal(erasure?.userId, p.externalId);
    await t.request({ method: "POST", url: `${POLICIES}/${policy.policyId}/archive`, headers: svc(seeded) });
  });

  test("another organisation's ids are 404", async () => {
    const policy = await createPolicy(t, seeded, {
      name: "Short",
      purpose: "Account",
      anchorEvent: "last_interaction",
      durationDays: 1,
    });
    const p = await consentingPrincipal(t, seeded, notice, "Account");
    const hold = json<{ holdId: string }>(
      await t.request({
        method: "POST",
        url: HOLDS,
        headers: svc(seeded),
        payload: { policyId: policy.policyId, statute: "s", citation: "c" },
      }),
      201,
    );
    json(
      await t.request({
        method: "POST",
        url: `${HOLDS}/${hold.holdId}/release`,
        headers: svc(seeded),
        payload: { reason: "done" },
      }),
    );
    t.clock.advance(3 * DAY);
    await sweep(t, new RecordingNotifier());
    const erasures = json<{ erasures: ErasureBody[] }>(
      await t.request({ method: "GET", url: `${ERASURES}?userId=${p.externalId}`, headers: svc(seeded) }),
    ).erasures;
    assert.equal(erasures.length, 1);
    const erasureId = erasures[0]!.scheduledErasureId;
    const foreign = svc(other);
    for (const [method, url, payload] of [
      ["GET", `${POLICIES}/${policy.policyId}`, undefined],
      ["PATCH", `${POLICIES}/${policy.policyId}`, { name: "mine" }],
      ["POST", `${POLICIES}/${policy.policyId}/archive`, undefined],
      ["POST", `${HOLDS}/${hold.holdId}/release`, { reason: "mine" }],
      ["POST", HOLDS, { policyId: policy.policyId, statute: "s", citation: "c" }],
      ["POST", HOLDS, { userId: p.externalId, statute: "s", citation: "c" }],
      ["POST", EVENTS, { userId: p.externalId, kind: "interaction" }],
      ["POST", executedUrl(erasureId), {}],
    ] as const) {
      assertApiError(
        await t.request({ method, url, headers: foreign, ...(payload ? { payload } : {}) }),
        404,
        "NOT_FOUND",
      );
    }
    assert.deepEqual(
      json<{ erasures: unknown[] }>(await t.request({ method: "GET", url: ERASURES, headers: foreign }))
        .erasures,
      [],
    );
    assert.deepEqual(
      json<{ due: unknown[] }>(
        await t.request({ method: "GET", url: "/api/v1/retention/due", headers: foreign }),
      ).due,
      [],
    );
    // The owner sees it due (notice 48 hours ago has run) and confirms it.
    t.clock.advance(48 * HOUR);
    json(await t.request({ method: "POST", url: executedUrl(erasureId), headers: svc(seeded), payload: {} }));
    await t.request({ method: "POST", url: `${POLICIES}/${policy.policyId}/archive`, headers: svc(seeded) });
  });

  test("statutory DSR denial checks retentionPolicyId against the organisation's register", async () => {
    const dpo = await signIn(t, seeded, "dpo");
    const policy = await createPolicy(t, seeded, {
      name: "KYC",
      purpose: "Account",
      anchorEvent: "account_closed",
      durationDays: 1825,
    });
    const foreignPolicy = await createPolicy(t, other, {
      name: "KYC",
      purpose: "Account",
      anchorEvent: "account_closed",
      durationDays: 1825,
    });
    const token = await principalToken(t, seeded, `denied-${Date.now()}`);
    const deny = (requestId: string, retentionPolicyId: string) =>
      t.request({
        method: "POST",
        url: `${STAFF_DSR}/${requestId}/statutory-denial`,
        headers: dpo.headers,
        payload: {
          statute: "Prevention of Money-laundering Act, 2002",
          citation: "Section 12",
          retentionPolicyId,
        },
      });
    const filed = await fileDsr(t, token, {
      organizationId: seeded.org.organizationId,
      type: "erasure",
      details: "Erase me",
    });
    for (const unknown of [foreignPolicy.policyId, "rtp_doesnotexist000000"]) {
      const res = await deny(filed.requestId, unknown);
      assertApiError(res, 404, "NOT_FOUND");
    }
    const still = json<{ requests: { requestId: string; status: string }[] }>(
      await t.request({
        method: "GET",
        url: `${STAFF_DSR}?organizationId=${seeded.org.organizationId}`,
        headers: dpo.headers,
      }),
    ).requests.find((r) => r.requestId === filed.requestId);
    assert.equal(still?.status, "pending");
    json(await deny(filed.requestId, policy.policyId));
  });

  test("while retention_api is off the partner routes answer 404; the capability is listed as built", async () => {
    const admin = await signIn(t, seeded, "admin");
    const listed = json<{ capabilities: { name: string; enabled: boolean; operations: string[] }[] }>(
      await t.request({ method: "GET", url: "/api/v1/staff/capabilities", headers: admin.headers }),
    );
    const capability = listed.capabilities.find((c) => c.name === "retention_api");
    assert.deepEqual(capability && [capability.enabled, capability.operations], [
      true,
      ["listDueRetentions", "confirmRetentionErasureExecuted"],
    ]);
    const orgId = seeded.org.organizationId;
    await t.db.transaction((tx) => setCapabilities(tx, orgId, { retention_api: false }));
    try {
      assertApiError(
        await t.request({ method: "GET", url: "/api/v1/retention/due", headers: svc(seeded) }),
        404,
        "NOT_FOUND",
      );
      assertApiError(
        await t.request({
          method: "POST",
          url: executedUrl("rse_0000000000000000"),
          headers: svc(seeded),
          payload: {},
        }),
        404,
        "NOT_FOUND",
      );
      // The staff register itself is not behind the capability.
      assert.equal((await t.request({ method: "GET", url: ERASURES, headers: svc(seeded) })).statusCode, 200);
      assert.equal(
        (await t.request({ method: "GET", url: "/api/v1/retention/due", headers: svc(other) })).statusCode,
        200,
      );
    } finally {
      await t.db.transaction((tx) => setCapabilities(tx, orgId, { retention_api: true }));
    }
    assert.equal(
      (await t.request({ method: "GET", url: "/api/v1/retention/due", headers: svc(seeded) })).statusCode,
      200,
    );
  });

  test("changing a policy's window reschedules its open erasures under the new terms", async () => {
    const org = await seedOrganization(t);
    const n = await publishNotice(t, org);
    const policy = await createPolicy(t, org, {
      name: "Short",
      purpose: "Account",
      anchorEvent: "last_interaction",
      durationDays: 10,
    });
    const p = await consentingPrincipal(t, org, n, "Account");
    const anchorAt = t.clock.now();
    t.clock.advance(9 * DAY);
    await sweep(t, new RecordingNotifier());
    const [first] = json<{ erasures: ErasureBody[] }>(
      await t.request({ method: "GET", url: ERASURES, headers: svc(org) }),
    ).erasures;
    assert.equal(first?.scheduledFor, anchorAt + 10 * DAY);
    json(
      await t.request({
        method: "PATCH",
        url: `${POLICIES}/${policy.policyId}`,
        headers: svc(org),
        payload: { durationDays: 20 },
      }),
    );
    const after = json<{ erasures: ErasureBody[] }>(
      await t.request({ method: "GET", url: `${ERASURES}?userId=${p.externalId}`, headers: svc(org) }),
    ).erasures;
    assert.deepEqual(
      after.map((e) => [e.status, e.cancelReason]),
      [["cancelled", "policy_changed"]],
    );
    t.clock.advance(9 * DAY);
    await sweep(t, new RecordingNotifier());
    const open = json<{ erasures: ErasureBody[] }>(
      await t.request({ method: "GET", url: `${ERASURES}?status=scheduled`, headers: svc(org) }),
    ).erasures;
    assert.equal(open.length, 1);
    assert.equal(open[0]!.scheduledFor, anchorAt + 20 * DAY);
  });

  test("guard audit verify finds an erasure, a hold or a policy altered in SQL", async () => {
    const org = await seedOrganization(t);
    const n = await publishNotice(t, org);
    const policy = await createPolicy(t, org, {
      name: "P",
      purpose: "Account",
      anchorEvent: "last_interaction",
      durationDays: 2,
    });
    const p = await consentingPrincipal(t, org, n, "Account");
    const hold = json<{ holdId: string }>(
      await t.request({
        method: "POST",
        url: HOLDS,
        headers: svc(org),
        payload: { userId: p.externalId, statute: "s", citation: "c" },
      }),
      201,
    );
    json(
      await t.request({
        method: "POST",
        url: `${HOLDS}/${hold.holdId}/release`,
        headers: svc(org),
        payload: { reason: "r" },
      }),
    );
    t.clock.advance(2 * DAY);
    await sweep(t, new RecordingNotifier());
    t.clock.advance(48 * HOUR);
    const [erasure] = json<{ erasures: ErasureBody[] }>(
      await t.request({ method: "GET", url: ERASURES, headers: svc(org) }),
    ).erasures;
    json(
      await t.request({
        method: "POST",
        url: executedUrl(erasure!.scheduledErasureId),
        headers: svc(org),
        payload: {},
      }),
    );
    const verify = () =>
      verifyAuditChain(t.db, org.org.organizationId, t.config.auditKeys, { now: t.clock.now() });
    const clean = await verify();
    assert.equal(clean.intact, true, JSON.stringify(clean.problems));
    for (const table of ["retention_policies", "retention_legal_holds", "retention_scheduled_erasures"])
      assert.ok((clean.rowsChecked[table] ?? 0) > 0, table);

    const tampers: [string, unknown[], string, string][] = [
      [
        "UPDATE retention_scheduled_erasures SET status = 'scheduled', executed_at = NULL, executed_by = NULL WHERE organization_id = $1 AND scheduled_erasure_id = $2",
        [org.org.organizationId, erasure!.scheduledErasureId],
        "retention_scheduled_erasures",
        erasure!.scheduledErasureId,
      ],
      [
        "UPDATE retention_legal_holds SET released_at = NULL, released_by = NULL, release_reason = NULL WHERE organization_id = $1 AND hold_id = $2",
        [org.org.organizationId, hold.holdId],
        "retention_legal_holds",
        hold.holdId,
      ],
      [
        "UPDATE retention_policies SET duration_days = 3650 WHERE organization_id = $1 AND policy_id = $2",
        [org.org.organizationId, policy.policyId],
        "retention_policies",
        policy.policyId,
      ],
    ];
    for (const [statement, params, table, recordId] of tampers) {
      await t.db.query(statement, params);
      const report = await verify();
      assert.equal(report.intact, false);
      assert.ok(
        report.problems.some((problem) => problem.table === table && problem.recordId === recordId),
        JSON.stringify(report.problems),
      );
    }
  });
});
