// The deployment operator's routes (/api/v1/operator/organizations, GUARD_OPERATOR_TOKEN): an
// organisation created over HTTP comes with a working first admin and service key; the token is
// the only credential they take, and it opens nothing else; creation is all or nothing and
// idempotent under an Idempotency-Key.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import { seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

const TOKEN = "operator-token-for-tests-0123456789abcdef";
const ORGS = "/api/v1/operator/organizations";
const operator = { authorization: `Bearer ${TOKEN}` };

type Created = {
  organization: { organizationId: string; slug: string; name: string; createdAt: number };
  admin: { staffId: string; email: string; password: string } | null;
  serviceKey: { apiKeyId: string; key: string };
};

describe("operator routes", () => {
  let t: TestApp;
  let unconfigured: TestApp;
  let seeded: SeededOrg;

  before(async () => {
    t = await startTestApp({ operatorTokenDigest: createHash("sha256").update(TOKEN).digest() });
    unconfigured = await startTestApp();
    seeded = await seedOrganization(t);
  });
  after(async () => {
    await unconfigured.close();
    await t.close();
  });

  const create = (payload: Record<string, unknown>, headers: Record<string, string> = operator) => {
    // Each organisation a second apart, so "oldest first" is the order of creation.
    t.clock.advance(1000);
    return t.request({ method: "POST", url: ORGS, headers, payload });
  };

  test("an organisation created over HTTP has a working admin and service key", async () => {
    const res = await create({ slug: "acme", name: "Acme Retail", adminEmail: "DPO@Acme.example" });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json() as Created;
    assert.equal(body.organization.slug, "acme");
    assert.equal(body.admin?.email, "dpo@acme.example");
    assert.ok(body.admin && body.admin.password.length >= 24);
    assert.match(body.serviceKey.key, /^gk_live_/);

    const signIn = await t.request({
      method: "POST",
      url: "/api/v1/staff/session",
      payload: { organizationSlug: "acme", email: "dpo@acme.example", password: body.admin!.password },
    });
    assert.equal(signIn.statusCode, 201, signIn.body);
    assert.equal(signIn.json().role, "admin");

    const withKey = await t.request({
      method: "GET",
      url: "/api/v1/staff/notifications",
      headers: { authorization: `Bearer ${body.serviceKey.key}` },
    });
    assert.equal(withKey.statusCode, 200, "the key belongs to the new organisation");

    const publicRead = await t.request({ method: "GET", url: "/api/v1/org/acme" });
    assert.equal(publicRead.json().orgId, body.organization.organizationId);
  });

  test("without adminEmail no admin is made; a taken slug is a conflict", async () => {
    const res = await create({ slug: "no-admin", name: "No Admin" });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal((res.json() as Created).admin, null);
    assertApiError(await create({ slug: "no-admin", name: "Again" }), 409, "CONFLICT", { field: "slug" });
  });

  test("bad input names the field and creates nothing", async () => {
    assertApiError(await create({ slug: "Bad Slug", name: "X" }), 400, "VALIDATION_ERROR", { field: "slug" });
    assertApiError(await create({ slug: "ok-slug" }), 400, "VALIDATION_ERROR", { field: "name" });
    assertApiError(
      await create({ slug: "half-made", name: "Half", adminEmail: "not-an-email" }),
      400,
      "VALIDATION_ERROR",
      { field: "email" },
    );
    // The organisation insert rolled back with the refused admin: the slug is still free.
    assert.equal((await t.request({ method: "GET", url: "/api/v1/org/half-made" })).statusCode, 404);
    assert.equal((await create({ slug: "half-made", name: "Half" })).statusCode, 201);
  });

  test("a retried creation with its Idempotency-Key answers the first answer", async () => {
    const headers = { ...operator, "idempotency-key": "create-retried-1" };
    const first = await create(
      { slug: "retried", name: "Retried", adminEmail: "a@retried.example" },
      headers,
    );
    assert.equal(first.statusCode, 201, first.body);
    const again = await create(
      { slug: "retried", name: "Retried", adminEmail: "a@retried.example" },
      headers,
    );
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.json(), first.json());
    assertApiError(await create({ slug: "other", name: "Other" }, headers), 409, "CONFLICT");
  });

  test("the list pages through every organisation, oldest first", async () => {
    const page = await t.request({ method: "GET", url: `${ORGS}?limit=2`, headers: operator });
    assert.equal(page.statusCode, 200, page.body);
    const first = page.json() as { organizations: { slug: string }[]; nextCursor: string | null };
    assert.deepEqual(
      first.organizations.map((o) => o.slug),
      [seeded.org.slug, "acme"],
    );
    assert.ok(first.nextCursor);
    const rest = await t.request({
      method: "GET",
      url: `${ORGS}?limit=100&cursor=${first.nextCursor}`,
      headers: operator,
    });
    assert.deepEqual(
      (rest.json() as { organizations: { slug: string }[] }).organizations.map((o) => o.slug),
      ["no-admin", "half-made", "retried"],
    );
  });

  test("only the operator token opens the operator routes, and it opens nothing else", async () => {
    assertApiError(await t.request({ method: "GET", url: ORGS }), 401, "UNAUTHORIZED");
    assertApiError(
      await t.request({ method: "GET", url: ORGS, headers: { authorization: `Bearer ${TOKEN}x` } }),
      401,
      "UNAUTHORIZED",
      { message: /Invalid operator token/ },
    );
    assertApiError(
      await t.request({ method: "GET", url: ORGS, headers: { authorization: `Bearer ${seeded.apiKey}` } }),
      401,
      "UNAUTHORIZED",
    );
    const staff = await t.request({ method: "GET", url: "/api/v1/staff/notifications", headers: operator });
    assertApiError(staff, 401, "UNAUTHORIZED");
    assertApiError(
      await unconfigured.request({ method: "GET", url: ORGS, headers: operator }),
      401,
      "UNAUTHORIZED",
      { message: /GUARD_OPERATOR_TOKEN/ },
    );
  });
});
