// PostgreSQL text cannot hold U+0000. JSON (`\u0000`), query strings (`%00`) and headers can carry it,
// so a request that does is 400 VALIDATION_ERROR, never a 500 from the database (found by scripts/fuzz.mjs).
import { after, before, describe, test } from "node:test";
import { registerApp } from "../../src/banner/banner-config.js";
import { assertApiError } from "../support/api-error.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

describe("NUL characters in request text", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    await registerApp(t.db, seeded.org.organizationId, "com.example.app", t.clock.now());
  });
  after(() => t.close());

  test("in a JSON body: 400, not 500", async () => {
    const res = await t.request({
      method: "POST",
      url: "/api/v1/auth/broker-token",
      headers: { ...bearer(seeded.apiKey), "content-type": "application/json" },
      payload: '{"externalId": "user\\u000042"}',
    });
    assertApiError(res, 400, "VALIDATION_ERROR", { message: /NUL/ });
  });

  test("in a query string: 400, not 500", async () => {
    const res = await t.request({
      method: "GET",
      url: `/api/v1/org/${seeded.org.organizationId}/banner-config?appId=com.example%00app`,
    });
    assertApiError(res, 400, "VALIDATION_ERROR", { message: /NUL/ });
  });
});
