// Tenant isolation: every credential is scoped to one organisation, and another organisation's
// records answer 404 NOT_FOUND (never 403, which would confirm they exist).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createStaffUser } from "../../src/accounts/staff.js";
import { registerApp, registerDomain, saveBannerSettings } from "../../src/banner/banner-config.js";
import { verifyPrincipalToken } from "../../src/accounts/principal-tokens.js";
import { parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { assertApiError } from "../support/api-error.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";

const KEYS = "/api/v1/staff/api-keys";
const BROKER = "/api/v1/auth/broker-token";

type ApiKeySummary = { apiKeyId: string; revokedAt: number | null };
type CreatedKey = { apiKeyId: string; key: string };

const jwtClaims = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;

describe("tenant isolation", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** Two fresh organisations, each with a key and staff of every role. */
  const twoOrgs = async (): Promise<[SeededOrg, SeededOrg]> => [
    await seedOrganization(t),
    await seedOrganization(t),
  ];

  const listKeyIds = async (headers: Record<string, string>) => {
    const res = await t.request({ method: "GET", url: KEYS, headers });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { apiKeys: ApiKeySummary[] }).apiKeys.map((k) => k.apiKeyId);
  };

  test("staff list only their own organisation's keys", async () => {
    const [a, b] = await twoOrgs();
    const adminA = await signIn(t, a, "admin");
    const adminB = await signIn(t, b, "admin");
    const createdB = (
      await t.request({ method: "POST", url: KEYS, headers: adminB.headers, payload: { name: "b" } })
    ).json() as CreatedKey;

    assert.deepEqual(await listKeyIds(adminA.headers), [a.apiKeyId]);
    assert.deepEqual((await listKeyIds(adminB.headers)).sort(), [b.apiKeyId, createdB.apiKeyId].sort());
  });

  test("staff cannot revoke another organisation's key: 404, never 403, and the key keeps working", async () => {
    const [a, b] = await twoOrgs();
    for (const role of ["admin", "dpo"] as const) {
      const staffA = await signIn(t, a, role);
      const res = await t.request({
        method: "DELETE",
        url: `${KEYS}/${b.apiKeyId}`,
        headers: staffA.headers,
      });
      const body = assertApiError(res, 404, "NOT_FOUND");
      // The answer for B's real key is the same as for a key that does not exist at all.
      const absent = await t.request({
        method: "DELETE",
        url: `${KEYS}/key_neverExisted0000`,
        headers: staffA.headers,
      });
      assert.equal(assertApiError(absent, 404, "NOT_FOUND").error, body.error);
    }
    const adminB = await signIn(t, b, "admin");
    const keysB = (await t.request({ method: "GET", url: KEYS, headers: adminB.headers })).json() as {
      apiKeys: ApiKeySummary[];
    };
    assert.deepEqual(
      keysB.apiKeys.map((k) => [k.apiKeyId, k.revokedAt]),
      [[b.apiKeyId, null]],
    );
    const brokered = await t.request({
      method: "POST",
      url: BROKER,
      headers: bearer(b.apiKey),
      payload: { externalId: "u" },
    });
    assert.equal(brokered.statusCode, 201);
  });

  test("a key brokers tokens for its own organisation only; one externalId is a different principal per organisation", async () => {
    const [a, b] = await twoOrgs();
    const mint = async (seeded: SeededOrg) => {
      const res = await t.request({
        method: "POST",
        url: BROKER,
        headers: bearer(seeded.apiKey),
        // A caller cannot pick the organisation: unknown body members are ignored, never trusted.
        payload: {
          externalId: "shared-user",
          organizationId: a.org.organizationId,
          org: a.org.organizationId,
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      return (res.json() as { accessToken: string }).accessToken;
    };
    const tokenA = await mint(a);
    const tokenB = await mint(b);
    assert.equal(jwtClaims(tokenA).org, a.org.organizationId);
    assert.equal(jwtClaims(tokenB).org, b.org.organizationId);
    assert.notEqual(jwtClaims(tokenA).sub, jwtClaims(tokenB).sub);

    const verifiedB = await verifyPrincipalToken(t.config, tokenB, t.clock.now());
    assert.equal(verifiedB?.organizationId, b.org.organizationId);

    const principals = await t.db.query<{ organization_id: string; principal_id: string }>(
      "SELECT organization_id, principal_id FROM principals WHERE external_id = 'shared-user' AND organization_id IN ($1, $2)",
      [a.org.organizationId, b.org.organizationId],
    );
    assert.equal(principals.length, 2);
    const byOrg = new Map(principals.map((p) => [p.organization_id, p.principal_id]));
    assert.equal(byOrg.get(a.org.organizationId), jwtClaims(tokenA).sub);
    assert.equal(byOrg.get(b.org.organizationId), jwtClaims(tokenB).sub);
  });

  test("a staff email used in two organisations signs in to each with that organisation's password only", async () => {
    const [a, b] = await twoOrgs();
    const email = "dpo@shared.example";
    const passwordA = "password-for-org-a-0001";
    const passwordB = "password-for-org-b-0002";
    await createStaffUser(
      t.db,
      { organizationId: a.org.organizationId, email, role: "dpo", password: passwordA },
      0,
    );
    await createStaffUser(
      t.db,
      { organizationId: b.org.organizationId, email, role: "viewer", password: passwordB },
      0,
    );
    const signInTo = (slug: string, password: string) =>
      t.request({
        method: "POST",
        url: "/api/v1/staff/session",
        payload: { organizationSlug: slug, email, password },
      });

    assertApiError(await signInTo(a.org.slug, passwordB), 401, "UNAUTHORIZED");
    assertApiError(await signInTo(b.org.slug, passwordA), 401, "UNAUTHORIZED");
    const inA = await signInTo(a.org.slug, passwordA);
    assert.equal(inA.statusCode, 201);
    assert.deepEqual([inA.json().organizationId, inA.json().role], [a.org.organizationId, "dpo"]);
    const inB = await signInTo(b.org.slug, passwordB);
    assert.deepEqual([inB.json().organizationId, inB.json().role], [b.org.organizationId, "viewer"]);
  });

  test("one organisation's session cannot be driven with another session's CSRF token", async () => {
    const [a, b] = await twoOrgs();
    const adminA = await signIn(t, a, "admin");
    const adminB = await signIn(t, b, "admin");
    const mixed = { cookie: adminA.headers.cookie!, "x-csrf-token": adminB.csrfToken };
    const res = await t.request({ method: "POST", url: KEYS, headers: mixed, payload: { name: "mixed" } });
    assertApiError(res, 403, "FORBIDDEN");
    assert.deepEqual(await listKeyIds(adminA.headers), [a.apiKeyId]);
    assert.deepEqual(await listKeyIds(adminB.headers), [b.apiKeyId]);
  });

  test("notices and banner scopes stay with their organisation", async () => {
    const [a, b] = await twoOrgs();
    const now = t.clock.now();
    const draft = parseNoticeDraft({
      itemized: [{ purpose: "Marketing", personalDataDescription: "Email address" }],
      content: { en: { title: "Notice", body: "Body" } },
    });
    const noticeB = await publishNotice(t.db, b.org.organizationId, draft, now);
    const noticeA = await publishNotice(t.db, a.org.organizationId, draft, now);
    assert.notEqual(noticeA.noticeId, noticeB.noticeId, "identical content, still separate notices");

    const listA = (
      await t.request({ method: "GET", url: `/api/v1/org/${a.org.organizationId}/notices` })
    ).json() as {
      notices: { noticeId: string; organizationId: string }[];
    };
    assert.deepEqual(
      listA.notices.map((n) => [n.noticeId, n.organizationId]),
      [[noticeA.noticeId, a.org.organizationId]],
    );

    // B's domain and app are B's alone; B's banner settings never show for A.
    await registerDomain(t.db, b.org.organizationId, "shop.b.example", now);
    await registerApp(t.db, b.org.organizationId, "com.b.app", now);
    await saveBannerSettings(t.db, b.org.organizationId, { kind: "default" }, { brand: "B" }, now);
    const bannerA = (query: string) =>
      t.request({ method: "GET", url: `/api/v1/org/${a.org.organizationId}/banner-config${query}` });
    assertApiError(await bannerA("?domain=shop.b.example"), 404, "NOT_FOUND");
    assertApiError(await bannerA("?appId=com.b.app"), 404, "NOT_FOUND");
    assert.deepEqual((await bannerA("")).json(), { bannerSettings: {}, configVersion: 1 });
    const bannerB = await t.request({
      method: "GET",
      url: `/api/v1/org/${b.org.organizationId}/banner-config?domain=shop.b.example`,
    });
    assert.deepEqual(bannerB.json(), { bannerSettings: { brand: "B" }, configVersion: 2 });
  });
});
