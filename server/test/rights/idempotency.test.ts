// Idempotency-Key on POST /api/v1/dsr and POST /api/v1/grievances (CONTRACT.md): a replay returns
// the original status and body with `Idempotent-Replayed: true` and creates nothing; the same key
// with another body is 409 CONFLICT; concurrent first requests with one key create one record.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { DSR, GRIEVANCES, outboxEvents, principalToken } from "../support/rights-helpers.js";

describe("Idempotency-Key on rights creates", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
  });
  after(() => t.close());

  const routes = [
    {
      url: DSR,
      body: () => ({
        organizationId: seeded.org.organizationId,
        type: "erasure",
        details: "Delete my account",
      }),
      other: () => ({ organizationId: seeded.org.organizationId, type: "summary" }),
      list: "requests",
      table: "dsr_requests",
      event: "dsr.created",
    },
    {
      url: GRIEVANCES,
      body: () => ({
        organizationId: seeded.org.organizationId,
        subject: "Spam",
        description: "Still getting SMS",
      }),
      other: () => ({
        organizationId: seeded.org.organizationId,
        subject: "Spam",
        description: "Different text",
      }),
      list: "grievances",
      table: "grievances",
      event: "grievance.created",
    },
  ] as const;

  const count = async (table: string, principalExternalId: string) => {
    const [row] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} x JOIN principals p
         ON p.organization_id = x.organization_id AND p.principal_id = x.principal_id WHERE p.external_id = $1`,
      [principalExternalId],
    );
    return row!.n;
  };

  for (const route of routes) {
    test(`${route.url}: a replay returns the original answer and creates nothing; another body is 409`, async () => {
      const externalId = `idem-${route.table}`;
      const token = await principalToken(t, seeded, externalId);
      const headers = { ...bearer(token), "idempotency-key": "retry-1" };
      const first = await t.request({ method: "POST", url: route.url, headers, payload: route.body() });
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers["idempotent-replayed"], undefined);

      t.clock.advance(5_000);
      const again = await t.request({ method: "POST", url: route.url, headers, payload: route.body() });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.deepEqual(again.json(), first.json());
      assert.equal(await count(route.table, externalId), 1);

      const conflict = await t.request({ method: "POST", url: route.url, headers, payload: route.other() });
      assertApiError(conflict, 409, "CONFLICT");
      assert.equal(await count(route.table, externalId), 1);

      // Another key, or no key, is a new request.
      const fresh = await t.request({
        method: "POST",
        url: route.url,
        headers: { ...bearer(token), "idempotency-key": "retry-2" },
        payload: route.body(),
      });
      assert.equal(fresh.statusCode, 201);
      assert.notDeepEqual(fresh.json(), first.json());
      assert.equal(await count(route.table, externalId), 2);

      // Keys are scoped by credential: another principal's identical key is its own request.
      const stranger = await principalToken(t, seeded, `${externalId}-other`);
      const theirs = await t.request({
        method: "POST",
        url: route.url,
        headers: { ...bearer(stranger), "idempotency-key": "retry-1" },
        payload: route.body(),
      });
      assert.equal(theirs.statusCode, 201);
      assert.equal(theirs.headers["idempotent-replayed"], undefined);
    });

    test(`${route.url}: concurrent first requests with one key create exactly one record`, async () => {
      const externalId = `idem-parallel-${route.table}`;
      const token = await principalToken(t, seeded, externalId);
      const headers = { ...bearer(token), "idempotency-key": "burst" };
      const before = (await outboxEvents(t.db, seeded.org.organizationId, route.event)).length;
      const responses = await Promise.all(
        Array.from({ length: 8 }, () =>
          t.request({ method: "POST", url: route.url, headers, payload: route.body() }),
        ),
      );
      for (const res of responses) assert.equal(res.statusCode, 201, res.body);
      const bodies = new Set(responses.map((r) => r.body));
      assert.equal(bodies.size, 1, "every caller got the same answer");
      assert.equal(responses.filter((r) => r.headers["idempotent-replayed"] !== "true").length, 1);
      assert.equal(await count(route.table, externalId), 1);
      const after = (await outboxEvents(t.db, seeded.org.organizationId, route.event)).length;
      assert.equal(after - before, 1, "one created event");
      const listed = await t.request({ method: "GET", url: route.url, headers: bearer(token) });
      assert.equal((listed.json() as Record<string, unknown[]>)[route.list]!.length, 1);
    });
  }

  test("a failed request stores nothing: fixing the body and retrying with the same key creates", async () => {
    const token = await principalToken(t, seeded, "idem-fix");
    const headers = { ...bearer(token), "idempotency-key": "fix-1" };
    const bad = await t.request({
      method: "POST",
      url: GRIEVANCES,
      headers,
      payload: { organizationId: seeded.org.organizationId, subject: " ", description: "d" },
    });
    assertApiError(bad, 400, "VALIDATION_ERROR", { field: "subject" });
    const good = await t.request({
      method: "POST",
      url: GRIEVANCES,
      headers,
      payload: { organizationId: seeded.org.organizationId, subject: "s", description: "d" },
    });
    assert.equal(good.statusCode, 201, good.body);
  });
});
