// Route schemas are compiled on first use (http/lazy-serializers.ts, http/validation.ts), so a
// start pays for none of them. This file keeps the guarantee an eager start gave: every route's
// validators and serializers compile, and a lazily compiled answer is byte for byte the eager one.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { createApp } from "../../src/app.js";
import { testConfig } from "../../src/config.js";
import type { Database } from "../../src/db/database.js";
import { ROUTE_MODULES } from "../../src/routes.js";
import {
  openTestDatabase,
  seedOrganization,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";

describe("route schema compilation", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let eager: FastifyInstance;
  let eagerDb: { db: Database; dispose(): Promise<void> };

  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    eagerDb = await openTestDatabase();
  });
  after(async () => {
    await eager?.close();
    await eagerDb.dispose();
    await t.close();
  });

  test("every route's validators and serializers compile", async () => {
    eager = await createApp({
      config: testConfig(),
      db: eagerDb.db,
      routes: ROUTE_MODULES,
      compileSchemasEagerly: true,
      bannerScript: null,
      dashboard: null,
    });
    await eager.ready();
    assert.ok(eager.hasRoute({ method: "GET", url: "/api/v1/org/:orgId" }));
  });

  test("a lazily compiled serializer answers as the eager one", async () => {
    // The same organisation row in both databases is not needed: an error answer and the public
    // organisation answer both go through the serializers.
    const lazyMissing = await t.request({ method: "GET", url: "/api/v1/org/no-such-org" });
    const eagerMissing = await eager.inject({ method: "GET", url: "/api/v1/org/no-such-org" });
    assert.equal(lazyMissing.statusCode, 404);
    assert.equal(eagerMissing.statusCode, 404);
    const strip = (body: string) => body.replace(/"requestId":"[^"]*"/, "");
    assert.equal(strip(lazyMissing.body), strip(eagerMissing.body));

    const found = await t.request({ method: "GET", url: `/api/v1/org/${seeded.org.slug}` });
    assert.equal(found.statusCode, 200);
    const again = await t.request({ method: "GET", url: `/api/v1/org/${seeded.org.slug}` });
    assert.equal(again.body, found.body, "the compiled serializer is reused");
  });

  test("a lazily compiled validator refuses bad input with the field named", async () => {
    const res = await t.request({
      method: "GET",
      url: "/api/v1/staff/notifications?limit=0",
      headers: { authorization: `Bearer ${seeded.apiKey}` },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().field, "limit");
  });
});
