// Cursor paging of the rights lists: the staff queues (earliest deadline first) and a principal's
// own lists (newest first). A walk sees every item once, also while items are being filed; filters
// combine with paging; a cursor works only on the list, organisation and principal it came from.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import {
  DSR,
  fileDsr,
  GRIEVANCES,
  principalToken,
  STAFF_DSR,
  STAFF_GRIEVANCES,
  type DsrBody,
  type GrievanceBody,
} from "../support/rights-helpers.js";

interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

describe("rights list paging", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let other: SeededOrg;
  let dpo: Record<string, string>;
  let otherDpo: Record<string, string>;
  let alice: string;
  let bob: string;
  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    other = await seedOrganization(t);
    dpo = (await signIn(t, seeded, "dpo")).headers;
    otherDpo = (await signIn(t, other, "dpo")).headers;
    alice = await principalToken(t, seeded, "alice");
    bob = await principalToken(t, seeded, "bob");
  });
  after(() => t.close());

  const orgId = () => seeded.org.organizationId;
  const fileGrievance = async (token: string, n: number): Promise<GrievanceBody> => {
    const res = await t.request({
      method: "POST",
      url: GRIEVANCES,
      headers: bearer(token),
      payload: { organizationId: orgId(), subject: `Subject ${n}`, description: `Grievance ${n}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as GrievanceBody;
  };
  const get = (url: string, headers: Record<string, string>) => t.request({ method: "GET", url, headers });
  /** One page of `url` (whose query already has a `?`), as `{ items, nextCursor }`. */
  const page = async <T>(
    url: string,
    field: string,
    headers: Record<string, string>,
    limit: number,
    cursor?: string,
  ) => {
    const query = `&limit=${limit}${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const res = await get(`${url}${query}`, headers);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as Record<string, unknown> & { nextCursor: string | null };
    const items = body[field] as T[];
    assert.ok(items.length <= limit, "a page never holds more than limit items");
    if (body.nextCursor !== null) assert.equal(items.length, limit, "only the last page is short");
    return { items, nextCursor: body.nextCursor } satisfies Page<T>;
  };
  /** Every page of `url`; `between` runs after each page (to write while the walk goes on). */
  const walk = async <T>(
    url: string,
    field: string,
    headers: Record<string, string>,
    limit: number,
    between: (pageNumber: number) => Promise<void> = async () => undefined,
  ) => {
    const seen: T[] = [];
    let cursor: string | undefined;
    for (let n = 1; ; n++) {
      const next: Page<T> = await page<T>(url, field, headers, limit, cursor);
      seen.push(...next.items);
      if (next.nextCursor === null) return seen;
      cursor = next.nextCursor;
      await between(n);
    }
  };
  const staffDsr = () => `${STAFF_DSR}?organizationId=${orgId()}`;
  const staffGrievances = () => `${STAFF_GRIEVANCES}?organizationId=${orgId()}`;
  const ids = (items: DsrBody[]) => items.map((r) => r.requestId);

  test("the staff DSR queue walks page by page in deadline order, with no repeat or gap", async () => {
    // Many share one deadline (same filing instant), so pages end between equal deadlines too.
    for (let i = 0; i < 23; i++) {
      if (i % 5 === 0) t.clock.advance(60_000);
      await fileDsr(t, i % 2 ? alice : bob, { organizationId: orgId(), type: "summary" });
    }
    const whole = (await page<DsrBody>(staffDsr(), "requests", dpo, 500)).items;
    assert.equal(whole.length, 23);
    const sorted = [...whole].sort((a, b) => a.dueAt - b.dueAt || (a.requestId < b.requestId ? -1 : 1));
    assert.deepEqual(ids(whole), ids(sorted), "earliest deadline first, then id");
    for (const limit of [1, 4, 23, 100]) {
      assert.deepEqual(
        ids(await walk<DsrBody>(staffDsr(), "requests", dpo, limit)),
        ids(whole),
        `limit ${limit}`,
      );
    }
    // The organisation's service key reads the same queue, and the default page holds all 23.
    const byKey = await get(staffDsr(), bearer(seeded.apiKey));
    assert.equal(byKey.statusCode, 200, byKey.body);
    assert.deepEqual(ids((byKey.json() as { requests: DsrBody[] }).requests), ids(whole));
    assert.equal((byKey.json() as { nextCursor: unknown }).nextCursor, null);
  });

  test("requests filed during a walk never make it repeat or skip an item that was already there", async () => {
    const before = ids((await page<DsrBody>(staffDsr(), "requests", dpo, 500)).items);
    let filed = 0;
    const seen = ids(
      await walk<DsrBody>(staffDsr(), "requests", dpo, 3, async () => {
        // New requests land both before the walk's position (same deadline, smaller id) and after it.
        for (let i = 0; i < 2; i++, filed++) {
          await fileDsr(t, alice, { organizationId: orgId(), type: "correction", details: `walk ${filed}` });
        }
      }),
    );
    assert.ok(filed > 0);
    assert.equal(new Set(seen).size, seen.length, "no request twice");
    for (const id of before) assert.ok(seen.includes(id), `${id} was there all along and is seen`);
  });

  test("filters combine with paging", async () => {
    const all = (await page<DsrBody>(staffDsr(), "requests", dpo, 500)).items;
    for (const r of all.filter((_, i) => i % 3 === 0)) {
      const res = await t.request({
        method: "PATCH",
        url: `${STAFF_DSR}/${r.requestId}`,
        headers: dpo,
        payload: { status: "in_progress" },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    const filtered = `${staffDsr()}&status=in_progress&type=summary`;
    const whole = (await page<DsrBody>(filtered, "requests", dpo, 500)).items;
    assert.ok(whole.length > 3 && whole.every((r) => r.status === "in_progress" && r.type === "summary"));
    assert.deepEqual(ids(await walk<DsrBody>(filtered, "requests", dpo, 2)), ids(whole));
  });

  test("the staff grievance queue and a principal's own lists walk the same way", async () => {
    for (let i = 0; i < 9; i++) {
      if (i % 4 === 0) t.clock.advance(1_000);
      await fileGrievance(i % 3 ? alice : bob, i);
    }
    const grievanceIds = (items: GrievanceBody[]) => items.map((g) => g.grievanceId);
    const queue = (await page<GrievanceBody>(staffGrievances(), "grievances", dpo, 500)).items;
    assert.equal(queue.length, 9);
    assert.deepEqual(grievanceIds(await walk(staffGrievances(), "grievances", dpo, 2)), grievanceIds(queue));

    // A principal's own lists: newest first (creation time, then id, both descending).
    const mine = (await page<DsrBody>(`${DSR}?`, "requests", bearer(alice), 500)).items;
    assert.ok(mine.length > 10 && mine.every((r) => r.externalId === "alice"));
    const newestFirst = [...mine].sort(
      (a, b) => b.createdAt - a.createdAt || (a.requestId < b.requestId ? 1 : -1),
    );
    assert.deepEqual(ids(mine), ids(newestFirst));
    assert.deepEqual(ids(await walk<DsrBody>(`${DSR}?`, "requests", bearer(alice), 3)), ids(mine));
    const myGrievances = (await page<GrievanceBody>(`${GRIEVANCES}?`, "grievances", bearer(alice), 500))
      .items;
    assert.equal(myGrievances.length, 6);
    assert.deepEqual(
      grievanceIds(await walk<GrievanceBody>(`${GRIEVANCES}?`, "grievances", bearer(alice), 4)),
      grievanceIds(myGrievances),
    );
  });

  test("a cursor is refused (400 VALIDATION_ERROR on cursor) off its own list, tenant and principal, or altered", async () => {
    const cursorOf = async (url: string, field: string, headers: Record<string, string>) => {
      const first = await page(url, field, headers, 1);
      assert.ok(first.nextCursor);
      return first.nextCursor;
    };
    const dsrCursor = await cursorOf(staffDsr(), "requests", dpo);
    const refused = async (url: string, headers: Record<string, string>, cursor: string) =>
      assertApiError(
        await get(`${url}&cursor=${encodeURIComponent(cursor)}`, headers),
        400,
        "VALIDATION_ERROR",
        {
          field: "cursor",
        },
      );

    // Altered: every single-character change, and truncation, is refused.
    const alphabet = "ABCabc019-_.";
    for (let i = 0; i < dsrCursor.length; i++) {
      const replacement = alphabet.split("").find((c) => c !== dsrCursor[i])!;
      await refused(staffDsr(), dpo, dsrCursor.slice(0, i) + replacement + dsrCursor.slice(i + 1));
    }
    await refused(staffDsr(), dpo, dsrCursor.slice(0, -1));
    await refused(staffDsr(), dpo, "not-a-cursor");
    // Another list's cursor.
    await refused(staffDsr(), dpo, await cursorOf(staffGrievances(), "grievances", dpo));
    await refused(staffGrievances(), dpo, dsrCursor);
    // Another organisation: its staff cannot use ours, nor we theirs (it has requests of its own).
    const carol = await principalToken(t, other, "carol");
    for (let i = 0; i < 2; i++)
      await fileDsr(t, carol, { organizationId: other.org.organizationId, type: "summary" });
    const otherQueue = `${STAFF_DSR}?organizationId=${other.org.organizationId}`;
    await refused(otherQueue, otherDpo, dsrCursor);
    await refused(staffDsr(), dpo, await cursorOf(otherQueue, "requests", otherDpo));
    // Another principal of the same organisation.
    const aliceCursor = await cursorOf(`${DSR}?`, "requests", bearer(alice));
    await refused(`${DSR}?`, bearer(bob), aliceCursor);
    // The cursor still works where it belongs.
    assert.equal((await get(`${staffDsr()}&cursor=${encodeURIComponent(dsrCursor)}`, dpo)).statusCode, 200);
  });

  test("limit: at least 1; larger than the maximum is clamped", async () => {
    assertApiError(await get(`${staffDsr()}&limit=0`, dpo), 400, "VALIDATION_ERROR", { field: "limit" });
    assertApiError(await get(`${staffDsr()}&limit=x`, dpo), 400, "VALIDATION_ERROR", { field: "limit" });
    const res = await get(`${staffDsr()}&limit=100000`, dpo);
    assert.equal(res.statusCode, 200, res.body);
  });
});
