// GET /api/v1/cross-border/transfers (issue 27 item 1): the calling key's organisation's active
// processing activities that cross the border, in the outline's shape (plus the additive fields),
// newest first and paged; archived ones and those that stay in India are left off; another
// organisation's never appear; the `cross_border_api` capability off is 404, and the capability is
// listed as built.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setCapabilities } from "../../src/capabilities/capabilities.js";
import { assertApiError } from "../support/api-error.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import { VALID, type Activity } from "./fixtures.js";

const TRANSFERS = "/api/v1/cross-border/transfers";
const ACTIVITIES = "/api/v1/staff/ropa/activities";

type Transfer = {
  activityId: string;
  activityName: string;
  purpose: string;
  dataCategories: string[];
  legalBasis: string;
  createdAt: number;
  destinationCountries?: string[];
  recipients?: { name: string; role: string; country?: string }[];
  storageLocation?: string;
};

describe("cross-border transfers (partner route)", () => {
  let t: TestApp;
  let a: SeededOrg;
  let b: SeededOrg;
  let adminA: Record<string, string>;
  let adminB: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    a = await seedOrganization(t);
    b = await seedOrganization(t);
    adminA = (await signIn(t, a, "admin")).headers;
    adminB = (await signIn(t, b, "admin")).headers;
  });
  after(() => t.close());

  async function createOk(
    headers: Record<string, string>,
    payload: Record<string, unknown>,
  ): Promise<Activity> {
    const res = await t.request({
      method: "POST",
      url: ACTIVITIES,
      headers,
      payload: { ...VALID, ...payload },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as Activity;
  }
  const transfers = (key: string, query = "") =>
    t.request({ method: "GET", url: `${TRANSFERS}${query}`, headers: bearer(key) });

  test("only active cross-border activities, in the outline's shape, newest first and paged", async () => {
    const made: Activity[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1_000);
      made.push(
        await createOk(adminA, {
          name: `Transfer ${i}`,
          purpose: `Purpose ${i}`,
          legalBasis: i === 0 ? "legal_obligation" : "consent",
          crossesBorder: true,
          destinationCountries: ["SG", "US"],
          recipients: [{ name: "Cloud Co", role: "processor", country: "SG" }],
        }),
      );
    }
    const domestic = await createOk(adminA, { name: "Domestic", crossesBorder: false });
    const archived = made[2]!;
    const archiving = await t.request({
      method: "POST",
      url: `${ACTIVITIES}/${archived.activityId}/archive`,
      headers: adminA,
    });
    assert.equal(archiving.statusCode, 200, archiving.body);
    // Another organisation's transfer never appears on A's key.
    const other = await createOk(adminB, { crossesBorder: true, destinationCountries: ["DE"] });

    const seen: Transfer[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await transfers(
        a.apiKey,
        `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      assert.equal(res.statusCode, 200, res.body);
      const page = res.json() as { transfers: Transfer[]; nextCursor: string | null };
      assert.deepEqual(Object.keys(page).sort(), ["nextCursor", "transfers"]);
      seen.push(...page.transfers);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    assert.equal(pages, 2);
    const expected = made.filter((x) => x !== archived).reverse();
    assert.deepEqual(
      seen.map((x) => x.activityId),
      expected.map((x) => x.activityId),
    );
    assert.ok(
      !seen.some((x) => x.activityId === domestic.activityId),
      "a domestic activity is not a transfer",
    );
    assert.ok(!seen.some((x) => x.activityId === other.activityId));
    const oldest = seen[seen.length - 1]!;
    assert.deepEqual(oldest, {
      activityId: made[0]!.activityId,
      activityName: "Transfer 0",
      purpose: "Purpose 0",
      dataCategories: VALID.dataCategories,
      legalBasis: "legal_obligation",
      createdAt: made[0]!.createdAt,
      destinationCountries: ["SG", "US"],
      recipients: [{ name: "Cloud Co", role: "processor", country: "SG" }],
      storageLocation: VALID.storageLocation,
    });

    // Restored, it is back; B's key sees only B's.
    await t.request({ method: "POST", url: `${ACTIVITIES}/${archived.activityId}/restore`, headers: adminA });
    const all = (await transfers(a.apiKey)).json() as { transfers: Transfer[] };
    assert.ok(all.transfers.some((x) => x.activityId === archived.activityId));
    const bList = (await transfers(b.apiKey)).json() as { transfers: Transfer[]; nextCursor: string | null };
    assert.deepEqual(
      bList.transfers.map((x) => x.activityId),
      [other.activityId],
    );
    assert.equal(bList.nextCursor, null);

    // Turning the border off takes an activity off the register.
    const patched = await t.request({
      method: "PATCH",
      url: `${ACTIVITIES}/${made[4]!.activityId}`,
      headers: adminA,
      payload: { crossesBorder: false, recipients: null },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const after = (await transfers(a.apiKey)).json() as { transfers: Transfer[] };
    assert.ok(!after.transfers.some((x) => x.activityId === made[4]!.activityId));
  });

  test("a service key is required; a bad cursor or limit is 400", async () => {
    assertApiError(await t.request({ method: "GET", url: TRANSFERS }), 401, "UNAUTHORIZED");
    assertApiError(await t.request({ method: "GET", url: TRANSFERS, headers: adminA }), 401, "UNAUTHORIZED");
    assertApiError(await transfers(a.apiKey, "?cursor=nope"), 400, "VALIDATION_ERROR", { field: "cursor" });
    assertApiError(await transfers(a.apiKey, "?limit=0"), 400, "VALIDATION_ERROR", { field: "limit" });
    // A cursor of the staff list does not page the partner route.
    await createOk(adminA, { name: "p1" });
    await createOk(adminA, { name: "p2" });
    const staffPage = (
      await t.request({ method: "GET", url: `${ACTIVITIES}?limit=1&crossesBorder=true`, headers: adminA })
    ).json() as { nextCursor: string };
    assert.ok(staffPage.nextCursor);
    assertApiError(
      await transfers(a.apiKey, `?cursor=${encodeURIComponent(staffPage.nextCursor)}`),
      400,
      "VALIDATION_ERROR",
      { field: "cursor" },
    );
  });

  test("while cross_border_api is off the route answers 404; the capability is listed as built", async () => {
    const listed = (
      await t.request({ method: "GET", url: "/api/v1/staff/capabilities", headers: adminA })
    ).json() as { capabilities: { name: string; enabled: boolean; operations: string[] }[] };
    const capability = listed.capabilities.find((c) => c.name === "cross_border_api");
    assert.deepEqual(capability && [capability.enabled, capability.operations], [
      true,
      ["listCrossBorderTransfers"],
    ]);

    await t.db.transaction((tx) => setCapabilities(tx, a.org.organizationId, { cross_border_api: false }));
    try {
      assertApiError(await transfers(a.apiKey), 404, "NOT_FOUND");
      // The staff register itself is not behind the capability.
      assert.equal((await t.request({ method: "GET", url: ACTIVITIES, headers: adminA })).statusCode, 200);
      // Another organisation's switch is its own.
      assert.equal((await transfers(b.apiKey)).statusCode, 200);
    } finally {
      await t.db.transaction((tx) => setCapabilities(tx, a.org.organizationId, { cross_border_api: true }));
    }
    assert.equal((await transfers(a.apiKey)).statusCode, 200);
  });
});
