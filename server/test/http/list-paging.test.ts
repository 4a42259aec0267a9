// Cursor paging of the configuration lists (service API keys, webhook endpoints, notices, banner
// settings, registered domains and apps, domain groups): each one walked page by page gives the
// whole list in its order, once; its cursors work only on that list of that organisation. (The
// rights lists and the gate's log, which grow with traffic, have their own tests.)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApiKey } from "../../src/accounts/api-keys.js";
import { assertApiError } from "../support/api-error.js";
import { publishTestNotice } from "../support/consent-fixtures.js";
import { seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { staffClient } from "../support/staff-client.js";

interface List {
  url: (seeded: SeededOrg) => string;
  field: string;
  /** Staff lists are read by a signed-in viewer; public ones without a credential. */
  public?: boolean;
  /** What identifies an item, to compare walks. */
  id: (item: Record<string, unknown>) => unknown;
}

const LISTS: Record<string, List> = {
  listApiKeys: { url: () => "/api/v1/staff/api-keys", field: "apiKeys", id: (k) => k.apiKeyId },
  listWebhookEndpoints: { url: () => "/api/v1/staff/webhooks", field: "endpoints", id: (e) => e.endpointId },
  listStaffNotices: { url: () => "/api/v1/staff/notices", field: "notices", id: (n) => n.noticeId },
  getNoticesForOrg: {
    url: (s) => `/api/v1/org/${s.org.organizationId}/notices`,
    field: "notices",
    public: true,
    id: (n) => n.noticeId,
  },
  listBannerSettings: {
    url: () => "/api/v1/staff/banner-settings",
    field: "bannerSettings",
    id: (s) => `${String(s.scope)}:${String(s.domain ?? s.appId ?? "")}`,
  },
  listRegisteredDomains: { url: () => "/api/v1/staff/domains", field: "domains", id: (d) => d.domain },
  listRegisteredApps: { url: () => "/api/v1/staff/apps", field: "apps", id: (a) => a.appId },
  listDomainGroups: {
    url: () => "/api/v1/staff/domain-groups",
    field: "domainGroups",
    id: (g) => g.domainGroupId,
  },
};

describe("configuration list paging", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let other: SeededOrg;
  let staff: ReturnType<typeof staffClient>;
  before(async () => {
    t = await startTestApp();
    staff = staffClient(t);
    seeded = await seedOrganization(t);
    other = await seedOrganization(t);
    const dpo = async (method: "PUT" | "POST", url: string, payload?: unknown) => {
      const res = await staff(seeded, "dpo", method, url, payload);
      assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
    };
    // Five or more of each, some created at the same instant (ties are broken by id).
    for (let i = 0; i < 5; i++) {
      if (i % 2 === 0) t.clock.advance(1_000);
      const organizationId = seeded.org.organizationId;
      await createApiKey(t.db, { organizationId, name: `key ${i}`, createdBy: null }, t.clock.now());
      await dpo("POST", "/api/v1/staff/webhooks", {
        url: `https://hooks${i}.example.in/guard`,
        events: ["consent.given"],
      });
      await publishTestNotice(t, seeded, { key: `notice-${i}`, title: `Notice ${i}` });
      await dpo("PUT", `/api/v1/staff/domains/shop${4 - i}.example.com`);
      await dpo("PUT", `/api/v1/staff/apps/com.example.app${(i * 3) % 5}`);
      await dpo("POST", "/api/v1/staff/domain-groups", { name: `Group ${(i * 2) % 5}` });
      await dpo("PUT", `/api/v1/staff/domains/shop${4 - i}.example.com/banner-settings`, {
        bannerSettings: {},
      });
    }
    await dpo("PUT", "/api/v1/staff/banner-settings/default", { bannerSettings: {} });
    await dpo("PUT", "/api/v1/staff/apps/com.example.app1/banner-settings", { bannerSettings: {} });
  });
  after(() => t.close());

  const read = (list: List, owner: SeededOrg, query: string) => {
    const url = `${list.url(owner)}?${query}`;
    return list.public ? t.request({ method: "GET", url }) : staff(owner, "viewer", "GET", url);
  };
  const page = async (list: List, owner: SeededOrg, limit: number, cursor?: string) => {
    const query = `limit=${limit}${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const res = await read(list, owner, query);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as Record<string, unknown> & { nextCursor: string | null };
    const items = body[list.field] as Record<string, unknown>[];
    assert.ok(items.length <= limit);
    if (body.nextCursor !== null) assert.equal(items.length, limit, "only the last page is short");
    return { items, nextCursor: body.nextCursor };
  };

  for (const [operationId, list] of Object.entries(LISTS)) {
    test(`${operationId}: every page in order, once; a foreign or altered cursor is 400 on cursor`, async () => {
      const whole = (await page(list, seeded, 500)).items;
      assert.ok(whole.length >= 5, `${whole.length} items`);
      // The default page (no limit) is the whole of so short a list.
      const byDefault = await read(list, seeded, "");
      assert.deepEqual((byDefault.json() as Record<string, unknown>)[list.field], whole);
      for (const limit of [1, 2, 3]) {
        const walked: Record<string, unknown>[] = [];
        let cursor: string | undefined;
        do {
          const next = await page(list, seeded, limit, cursor);
          walked.push(...next.items);
          cursor = next.nextCursor ?? undefined;
        } while (cursor !== undefined);
        assert.deepEqual(walked.map(list.id), whole.map(list.id), `limit ${limit}`);
      }

      const { nextCursor } = await page(list, seeded, 1);
      assert.ok(nextCursor);
      const refused = async (owner: SeededOrg, cursor: string) =>
        assertApiError(
          await read(list, owner, `limit=1&cursor=${encodeURIComponent(cursor)}`),
          400,
          "VALIDATION_ERROR",
          { field: "cursor" },
        );
      await refused(other, nextCursor);
      await refused(
        seeded,
        `${nextCursor.slice(0, 3)}${nextCursor[3] === "A" ? "B" : "A"}${nextCursor.slice(4)}`,
      );
      await refused(seeded, nextCursor.slice(0, -2));
      const otherList = Object.values(LISTS).find((l) => l !== list)!;
      const foreign = await page(otherList, seeded, 1);
      assert.ok(foreign.nextCursor);
      await refused(seeded, foreign.nextCursor);
    });
  }
});
