// Public reads: organisation by slug, published notices (versioned, multilingual, itemised) and the
// banner configuration with its domain/app scoping.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { registerApp, registerDomain, saveBannerSettings } from "../../src/banner/banner-config.js";
import { NoticeValidationError, parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { assertApiError } from "../support/api-error.js";
import { seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

type NoticeBody = {
  _id: string;
  noticeId: string;
  key?: string;
  organizationId: string;
  version: number;
  itemized: { purpose: string; personalDataDescription: string }[];
  content: Record<string, { title: string; body: string }>;
  status: string;
  publishedAt: number | null;
  languages: string[];
};
type BannerConfigBody = { bannerSettings?: Record<string, unknown>; configVersion: number };

const BILINGUAL_CONTENT = {
  en: {
    title: "How Acme Health uses your data",
    body: "We use your email address to send appointment reminders and offers.",
    withdrawal: "Withdraw at any time from Settings → Privacy.",
    rights: "You may ask for a summary, correction or erasure of your data.",
    complaint: "You may complain to the Data Protection Board of India.",
  },
  hi: {
    title: "एक्मे हेल्थ आपके डेटा का उपयोग कैसे करता है",
    body: "हम अपॉइंटमेंट अनुस्मारक और ऑफ़र भेजने के लिए आपके ईमेल पते का उपयोग करते हैं।",
  },
};
const ITEMIZED = [
  { purpose: "Appointment reminders", personalDataDescription: "Email address, phone number" },
  { purpose: "Marketing", personalDataDescription: "Email address" },
];

describe("public reads", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const get = (url: string) => t.request({ method: "GET", url });
  const publish = (seeded: SeededOrg, input: Record<string, unknown> = {}) =>
    publishNotice(
      t.db,
      seeded.org.organizationId,
      parseNoticeDraft({ itemized: ITEMIZED, content: BILINGUAL_CONTENT, ...input }),
      t.clock.now(),
    );
  const listNotices = async (organizationId: string) => {
    const res = await get(`/api/v1/org/${organizationId}/notices`);
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { notices: NoticeBody[] }).notices;
  };
  const bannerConfig = (organizationId: string, query = "") =>
    get(`/api/v1/org/${organizationId}/banner-config${query}`);
  const bannerOk = async (organizationId: string, query = "") => {
    const res = await bannerConfig(organizationId, query);
    assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
    return res.json() as BannerConfigBody;
  };

  describe("organisation by slug", () => {
    test("a known slug is 200 {orgId, name, slug}", async () => {
      const seeded = await seedOrganization(t);
      const res = await get(`/api/v1/org/${seeded.org.slug}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        orgId: seeded.org.organizationId,
        name: seeded.org.name,
        slug: seeded.org.slug,
      });
    });

    test("an unknown slug is 404; a malformed one is 400 naming slug", async () => {
      assertApiError(await get("/api/v1/org/no-such-organisation"), 404, "NOT_FOUND");
      for (const slug of ["Acme", "acme_health", "-acme", "acme-", "a".repeat(65), "acme%20health"]) {
        assertApiError(await get(`/api/v1/org/${slug}`), 400, "VALIDATION_ERROR", { field: "slug" });
      }
    });
  });

  describe("notices", () => {
    test("a published notice is listed and fetched with its multilingual content, itemised purposes and version", async () => {
      const seeded = await seedOrganization(t);
      const published = await publish(seeded);
      assert.deepEqual(
        { version: published.version, created: published.created },
        { version: 1, created: true },
      );
      assert.match(published.noticeId, /^ntc_[0-9A-Za-z]{8,64}$/);

      const notices = await listNotices(seeded.org.organizationId);
      assert.equal(notices.length, 1);
      const expected: NoticeBody = {
        _id: published.noticeId,
        noticeId: published.noticeId,
        key: "default",
        organizationId: seeded.org.organizationId,
        version: 1,
        itemized: ITEMIZED,
        content: BILINGUAL_CONTENT,
        status: "published",
        publishedAt: t.clock.now(),
        languages: ["en", "hi"],
      };
      assert.deepEqual(notices[0], expected);

      const one = await get(`/api/v1/notices/${published.noticeId}`);
      assert.equal(one.statusCode, 200);
      assert.deepEqual(one.json(), expected);
      assert.equal((one.json() as NoticeBody).content.hi!.title, BILINGUAL_CONTENT.hi.title, "UTF-8 intact");
    });

    test("publishing identical content again returns the same version", async () => {
      const seeded = await seedOrganization(t);
      const first = await publish(seeded);
      t.clock.advance(1000);
      const again = await publish(seeded);
      assert.deepEqual(again, { noticeId: first.noticeId, version: 1, created: false });
      // Language order does not make content different.
      const reordered = await publish(seeded, {
        content: { hi: BILINGUAL_CONTENT.hi, en: BILINGUAL_CONTENT.en },
      });
      assert.deepEqual(reordered, { noticeId: first.noticeId, version: 1, created: false });

      const versions = await t.db.query("SELECT version FROM notice_versions WHERE organization_id = $1", [
        seeded.org.organizationId,
      ]);
      assert.equal(versions.length, 1);
      const [listed] = await listNotices(seeded.org.organizationId);
      assert.equal(listed!.publishedAt, t.clock.now() - 1000, "the first publication time is kept");
    });

    test("changed content makes version 2; only version 2 is public, version 1 is kept as superseded", async () => {
      const seeded = await seedOrganization(t);
      const v1 = await publish(seeded);
      t.clock.advance(60_000);
      const changedItemized = [
        ...ITEMIZED,
        { purpose: "Research", personalDataDescription: "Visit history" },
      ];
      const v2 = await publish(seeded, { itemized: changedItemized });
      assert.deepEqual(v2, { noticeId: v1.noticeId, version: 2, created: true });

      const notices = await listNotices(seeded.org.organizationId);
      assert.deepEqual(
        notices.map((n) => [n.noticeId, n.version, n.status]),
        [[v1.noticeId, 2, "published"]],
      );
      assert.deepEqual(notices[0]!.itemized, changedItemized);
      assert.equal(notices[0]!.publishedAt, t.clock.now());
      const one = (await get(`/api/v1/notices/${v1.noticeId}`)).json() as NoticeBody;
      assert.equal(one.version, 2);
      assert.deepEqual(one.itemized, changedItemized);

      const rows = await t.db.query<{ version: number; status: string; itemized: unknown }>(
        "SELECT version, status, itemized FROM notice_versions WHERE organization_id = $1 AND notice_id = $2 ORDER BY version",
        [seeded.org.organizationId, v1.noticeId],
      );
      assert.deepEqual(
        rows.map((r) => [r.version, r.status]),
        [
          [1, "superseded"],
          [2, "published"],
        ],
      );
      assert.deepEqual(rows[0]!.itemized, ITEMIZED, "version 1 is kept unchanged as evidence");

      // A text change in one language is a change too.
      const v3 = await publish(seeded, {
        itemized: changedItemized,
        content: { ...BILINGUAL_CONTENT, hi: { ...BILINGUAL_CONTENT.hi, body: "संशोधित पाठ" } },
      });
      assert.equal(v3.version, 3);
    });

    test("an organisation's notices are listed oldest first, each under its own key", async () => {
      const seeded = await seedOrganization(t);
      const main = await publish(seeded);
      t.clock.advance(1000);
      const app = await publish(seeded, { key: "mobile-app" });
      assert.notEqual(app.noticeId, main.noticeId);
      const notices = await listNotices(seeded.org.organizationId);
      assert.deepEqual(
        notices.map((n) => n.noticeId),
        [main.noticeId, app.noticeId],
      );
    });

    test("another organisation's notices never appear in a listing", async () => {
      const a = await seedOrganization(t);
      const b = await seedOrganization(t);
      const noticeA = await publish(a);
      const noticeB = await publish(b);
      const bOnly = await publish(b, { key: "b-only" });
      const listedA = await listNotices(a.org.organizationId);
      assert.deepEqual(
        listedA.map((n) => n.noticeId),
        [noticeA.noticeId],
      );
      assert.ok(listedA.every((n) => n.organizationId === a.org.organizationId));
      const listedB = await listNotices(b.org.organizationId);
      assert.deepEqual(listedB.map((n) => n.noticeId).sort(), [noticeB.noticeId, bOnly.noticeId].sort());
      // An organisation with no notices lists none.
      const empty = await seedOrganization(t);
      assert.deepEqual(await listNotices(empty.org.organizationId), []);
    });

    test("unknown notices and organisations are 404; malformed ids are 400", async () => {
      assertApiError(await get("/api/v1/notices/ntc_doesNotExist0000"), 404, "NOT_FOUND");
      assertApiError(await get("/api/v1/org/org_doesNotExist0000/notices"), 404, "NOT_FOUND");
      assertApiError(await get("/api/v1/notices/ntc-bad-id-value"), 400, "VALIDATION_ERROR", {
        field: "noticeId",
      });
      assertApiError(await get("/api/v1/org/bad-org-id-value/notices"), 400, "VALIDATION_ERROR", {
        field: "orgId",
      });
    });

    test("parseNoticeDraft rejects bad input, naming the field", () => {
      const valid = { itemized: ITEMIZED, content: BILINGUAL_CONTENT };
      const rejects = (input: unknown, field: string) =>
        assert.throws(
          () => parseNoticeDraft(input),
          (error: unknown) => {
            assert.ok(error instanceof NoticeValidationError, String(error));
            assert.equal(error.field, field);
            assert.ok(error.message.startsWith(`${field}: `));
            return true;
          },
        );
      rejects(null, "notice");
      rejects([], "notice");
      rejects({ ...valid, itemized: [] }, "itemized");
      rejects({ content: BILINGUAL_CONTENT }, "itemized");
      rejects(
        { ...valid, itemized: [{ purpose: "Ads|Analytics", personalDataDescription: "x" }] },
        "itemized[0].purpose",
      );
      rejects({ ...valid, itemized: [{ purpose: "", personalDataDescription: "x" }] }, "itemized[0].purpose");
      rejects({ ...valid, itemized: [{ purpose: "Ads" }] }, "itemized[0].personalDataDescription");
      rejects(
        { ...valid, itemized: [...ITEMIZED, { purpose: "Marketing", personalDataDescription: "again" }] },
        "itemized[2].purpose",
      );
      rejects({ ...valid, content: { ...BILINGUAL_CONTENT, xx: { title: "t", body: "b" } } }, "content.xx");
      rejects({ ...valid, content: { fr: { title: "t", body: "b" } } }, "content.fr");
      rejects({ ...valid, content: { EN: { title: "t", body: "b" } } }, "content.EN");
      rejects({ ...valid, content: {} }, "content");
      rejects({ ...valid, content: "English only" }, "content");
      rejects({ ...valid, content: { en: { body: "b" } } }, "content.en.title");
      rejects({ ...valid, content: { hi: { title: "t", body: "  " } } }, "content.hi.body");
      rejects({ ...valid, key: "Not A Key" }, "key");

      // Every Eighth Schedule language is accepted, and unknown fields are dropped.
      const draft = parseNoticeDraft({
        ...valid,
        content: { ta: { title: "t", body: "b" }, sat: { title: "t", body: "b" } },
        extra: "ignored",
      });
      assert.deepEqual(Object.keys(draft.content), ["ta", "sat"]);
      assert.deepEqual(Object.keys(draft).sort(), ["content", "itemized", "key"]);
      assert.equal(draft.key, "default");
    });
  });

  describe("banner configuration", () => {
    test("the organisation default is configVersion 1 with empty settings", async () => {
      const seeded = await seedOrganization(t);
      assert.deepEqual(await bannerOk(seeded.org.organizationId), { bannerSettings: {}, configVersion: 1 });
    });

    test("a registered domain is 200, an unregistered one 404; hosts match case-insensitively", async () => {
      const seeded = await seedOrganization(t);
      const orgId = seeded.org.organizationId;
      assert.equal(await registerDomain(t.db, orgId, "Shop.Example.COM", t.clock.now()), "shop.example.com");

      for (const domain of [
        "shop.example.com",
        "SHOP.EXAMPLE.COM",
        "Shop.Example.Com",
        "shop.example.com.",
      ]) {
        assert.equal((await bannerOk(orgId, `?domain=${encodeURIComponent(domain)}`)).configVersion, 1);
      }
      // Strict: no parent, sibling or sub-domain match, and nothing that is not a hostname.
      for (const domain of [
        "example.com",
        "www.shop.example.com",
        "shop.example.co",
        "evil.com",
        "shop.example.com:443",
        "https://shop.example.com",
      ]) {
        assertApiError(await bannerConfig(orgId, `?domain=${encodeURIComponent(domain)}`), 404, "NOT_FOUND");
      }
    });

    test("a registered app is 200, an unregistered one 404", async () => {
      const seeded = await seedOrganization(t);
      const orgId = seeded.org.organizationId;
      await registerApp(t.db, orgId, "com.example.health", t.clock.now());
      assert.equal((await bannerOk(orgId, "?appId=com.example.health")).configVersion, 1);
      assertApiError(await bannerConfig(orgId, "?appId=com.example.other"), 404, "NOT_FOUND");
      assertApiError(await bannerConfig(orgId, "?appId=com.example"), 404, "NOT_FOUND");
    });

    test("with both domain and appId, the domain decides", async () => {
      const seeded = await seedOrganization(t);
      const orgId = seeded.org.organizationId;
      await registerDomain(t.db, orgId, "shop.example.com", t.clock.now());
      await registerApp(t.db, orgId, "com.example.health", t.clock.now());
      await saveBannerSettings(
        t.db,
        orgId,
        { kind: "domain", domain: "shop.example.com" },
        { theme: "web" },
        t.clock.now(),
      );
      await saveBannerSettings(
        t.db,
        orgId,
        { kind: "app", appId: "com.example.health" },
        { theme: "app" },
        t.clock.now(),
      );

      const both = await bannerOk(orgId, "?domain=shop.example.com&appId=com.example.health");
      assert.deepEqual(both.bannerSettings, { theme: "web" });
      // An unregistered domain is 404 even alongside a registered app.
      assertApiError(
        await bannerConfig(orgId, "?domain=other.example.com&appId=com.example.health"),
        404,
        "NOT_FOUND",
      );
      assert.deepEqual((await bannerOk(orgId, "?appId=com.example.health")).bannerSettings, { theme: "app" });
    });

    test("saved settings bump configVersion and apply to their own scope only", async () => {
      const seeded = await seedOrganization(t);
      const orgId = seeded.org.organizationId;
      const now = t.clock.now();
      await registerDomain(t.db, orgId, "shop.example.com", now);
      await registerDomain(t.db, orgId, "blog.example.com", now);
      await registerApp(t.db, orgId, "com.example.health", now);
      const domainScope = { kind: "domain", domain: "shop.example.com" } as const;

      // The default: every scope without its own settings follows it.
      const saved = await saveBannerSettings(t.db, orgId, { kind: "default" }, { theme: "dark" }, now);
      assert.deepEqual(saved, { bannerSettings: { theme: "dark" }, configVersion: 2 });
      const defaultV2 = { bannerSettings: { theme: "dark" }, configVersion: 2 };
      assert.deepEqual(await bannerOk(orgId), defaultV2);
      assert.deepEqual(await bannerOk(orgId, "?domain=shop.example.com"), defaultV2);
      assert.deepEqual(await bannerOk(orgId, "?appId=com.example.health"), defaultV2);

      // A domain's own settings: that domain only, with a version above anything it showed before.
      const shopBefore = (await bannerOk(orgId, "?domain=shop.example.com")).configVersion;
      await saveBannerSettings(t.db, orgId, domainScope, { theme: "light", position: "bottom" }, now);
      const shop = await bannerOk(orgId, "?domain=SHOP.example.com");
      assert.deepEqual(shop.bannerSettings, { theme: "light", position: "bottom" });
      assert.ok(
        shop.configVersion > shopBefore,
        `configVersion went from ${shopBefore} to ${shop.configVersion}`,
      );
      assert.deepEqual(await bannerOk(orgId), defaultV2);
      assert.deepEqual(await bannerOk(orgId, "?domain=blog.example.com"), defaultV2);
      assert.deepEqual(await bannerOk(orgId, "?appId=com.example.health"), defaultV2);

      // Each later edit bumps that scope's version by one and replaces (not merges) its settings.
      await saveBannerSettings(t.db, orgId, domainScope, { theme: "contrast" }, now);
      const shopAgain = await bannerOk(orgId, "?domain=shop.example.com");
      assert.deepEqual(shopAgain, {
        bannerSettings: { theme: "contrast" },
        configVersion: shop.configVersion + 1,
      });
      await saveBannerSettings(t.db, orgId, { kind: "default" }, { theme: "sepia" }, now);
      assert.deepEqual(await bannerOk(orgId), { bannerSettings: { theme: "sepia" }, configVersion: 3 });
      assert.deepEqual(await bannerOk(orgId, "?domain=shop.example.com"), shopAgain);
    });

    test("an unknown organisation is 404; a malformed id or empty scope is 400", async () => {
      assertApiError(await bannerConfig("org_doesNotExist0000"), 404, "NOT_FOUND");
      assertApiError(
        await bannerConfig("org_doesNotExist0000", "?domain=shop.example.com"),
        404,
        "NOT_FOUND",
      );
      assertApiError(await bannerConfig("not-an-org-id"), 400, "VALIDATION_ERROR", { field: "orgId" });
      const seeded = await seedOrganization(t);
      assertApiError(await bannerConfig(seeded.org.organizationId, "?appId="), 400, "VALIDATION_ERROR", {
        field: "appId",
      });
      assertApiError(
        await bannerConfig(seeded.org.organizationId, `?domain=${"a".repeat(254)}`),
        400,
        "VALIDATION_ERROR",
        { field: "domain" },
      );
    });
  });
});
