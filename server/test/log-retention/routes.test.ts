// The staff routes of the log-retention policy: any role reads it, admin and dpo set it (viewer
// 403), a period under a year is 400 naming the class, null keeps a class forever, and another
// organisation's policy is its own.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { ok, staffClient } from "../support/staff-client.js";

const URL = "/api/v1/staff/log-retention/policy";

interface ClassPolicy {
  retainDays: number | null;
  updatedAt: number | null;
  updatedBy: string | null;
}
type Policy = Record<
  "auditEntries" | "consentEvents" | "gateDecisions" | "webhookDeliveries",
  ClassPolicy
> & {
  minimumRetainDays: number;
};

describe("log-retention policy routes", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let other: SeededOrg;
  let staff: ReturnType<typeof staffClient>;
  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    other = await seedOrganization(t);
    staff = staffClient(t);
  });
  after(() => t.close());

  test("the default is forever, readable by every role", async () => {
    for (const role of ["admin", "dpo", "viewer"] as const) {
      const policy = ok<Policy>(await staff(seeded, role, "GET", URL));
      assert.equal(policy.minimumRetainDays, 365);
      assert.deepEqual(policy.auditEntries, { retainDays: null, updatedAt: null, updatedBy: null });
    }
  });

  test("dpo sets periods; viewer is refused; under a year is 400 naming the class", async () => {
    assertApiError(await staff(seeded, "viewer", "PUT", URL, { auditEntries: 400 }), 403, "FORBIDDEN");
    assertApiError(await staff(seeded, "dpo", "PUT", URL, { auditEntries: 364 }), 400, "VALIDATION_ERROR", {
      field: "auditEntries",
    });
    assertApiError(await staff(seeded, "dpo", "PUT", URL, { logs: 400 }), 400, "VALIDATION_ERROR", {
      field: "logs",
    });
    assertApiError(await staff(seeded, "dpo", "PUT", URL, {}), 400, "VALIDATION_ERROR");
    assertApiError(
      await staff(seeded, "dpo", "PUT", URL, { webhookDeliveries: 365.5 }),
      400,
      "VALIDATION_ERROR",
    );

    const set = ok<Policy>(
      await staff(seeded, "dpo", "PUT", URL, {
        auditEntries: 730,
        webhookDeliveries: 365,
        consentEvents: null,
      }),
    );
    assert.equal(set.auditEntries.retainDays, 730);
    assert.equal(set.webhookDeliveries.retainDays, 365);
    assert.equal(set.consentEvents.retainDays, null);
    assert.equal(set.auditEntries.updatedAt, t.clock.now());
    assert.match(set.auditEntries.updatedBy!, /^stf_/);
    assert.equal(set.gateDecisions.updatedAt, null);

    // Back to forever; the other classes keep theirs.
    const forever = ok<Policy>(await staff(seeded, "admin", "PUT", URL, { auditEntries: null }));
    assert.equal(forever.auditEntries.retainDays, null);
    assert.equal(forever.webhookDeliveries.retainDays, 365);
    assert.deepEqual(ok<Policy>(await staff(seeded, "viewer", "GET", URL)), forever);
  });

  test("the service key reads and sets its own organisation's policy only", async () => {
    const res = await t.request({
      method: "PUT",
      url: URL,
      headers: bearer(other.apiKey),
      payload: { gateDecisions: 400 },
    });
    const policy = ok<Policy>(res);
    assert.equal(policy.gateDecisions.retainDays, 400);
    assert.equal(policy.gateDecisions.updatedBy, other.apiKeyId);
    const mine = ok<Policy>(await staff(seeded, "viewer", "GET", URL));
    assert.equal(mine.gateDecisions.retainDays, null);
    assertApiError(await t.request({ method: "GET", url: URL }), 401, "UNAUTHORIZED");
  });
});
