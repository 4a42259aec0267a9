// Records of processing activities (issue 27 item 1) over HTTP: create, read, partial update,
// archive and restore; every rule refused naming its field (legal basis enum, destinations exactly
// when crossing the border, assigned ISO country codes, recipients abroad among the destinations);
// unknown fields ignored; another organisation's activity 404 on every route; viewers read only;
// the service key may act; Idempotency-Key on create; paging and filters; each change on the chain.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { findProcessingActivity } from "../../src/ropa/store.js";
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

const ACTIVITIES = "/api/v1/staff/ropa/activities";

describe("records of processing activities (staff routes)", () => {
  let t: TestApp;
  let a: SeededOrg;
  let b: SeededOrg;
  let adminA: Record<string, string>;
  let dpoA: Record<string, string>;
  let viewerA: Record<string, string>;
  let adminB: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    a = await seedOrganization(t);
    b = await seedOrganization(t);
    adminA = (await signIn(t, a, "admin")).headers;
    dpoA = (await signIn(t, a, "dpo")).headers;
    viewerA = (await signIn(t, a, "viewer")).headers;
    adminB = (await signIn(t, b, "admin")).headers;
  });
  after(() => t.close());

  const create = (headers: Record<string, string>, payload: Record<string, unknown>) =>
    t.request({ method: "POST", url: ACTIVITIES, headers, payload });
  const get = (headers: Record<string, string>, id: string) =>
    t.request({ method: "GET", url: `${ACTIVITIES}/${id}`, headers });
  const patch = (headers: Record<string, string>, id: string, payload: Record<string, unknown>) =>
    t.request({ method: "PATCH", url: `${ACTIVITIES}/${id}`, headers, payload });
  const archive = (headers: Record<string, string>, id: string) =>
    t.request({ method: "POST", url: `${ACTIVITIES}/${id}/archive`, headers });
  const restore = (headers: Record<string, string>, id: string) =>
    t.request({ method: "POST", url: `${ACTIVITIES}/${id}/restore`, headers });
  const list = (headers: Record<string, string>, query = "") =>
    t.request({ method: "GET", url: `${ACTIVITIES}${query}`, headers });

  async function createOk(
    headers: Record<string, string>,
    payload: Record<string, unknown> = {},
  ): Promise<Activity> {
    const res = await create(headers, { ...VALID, ...payload });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as Activity;
  }

  async function chainEntries(organizationId: string, activityId: string) {
    await linkQueuedOf(t.db, organizationId, t.clock.now());
    const rows = await t.db.query<{ entry_type: string; payload: string; created_at: number }>(
      `SELECT entry_type, payload, created_at FROM audit_entries
        WHERE organization_id = $1 AND subject_id = $2 ORDER BY seq`,
      [organizationId, activityId],
    );
    return rows.map((r) => ({
      type: r.entry_type,
      at: Number(r.created_at),
      payload: JSON.parse(r.payload) as Record<string, unknown>,
    }));
  }

  test("an activity is recorded with a new id, every field as given, and its times", async () => {
    t.clock.advance(1_000);
    const activity = await createOk(dpoA, {
      description: "Shipping orders to customers",
      recipients: [
        { name: "BlueDart", role: "processor", country: "IN" },
        { name: "Shopify", role: "processor", country: "CA" },
        { name: "Payments Ltd", role: "joint_fiduciary" },
      ],
      crossesBorder: true,
      destinationCountries: ["CA", "US"],
    });
    assert.match(activity.activityId, /^act_[0-9A-Za-z]{20}$/);
    assert.equal(activity.name, "Order fulfilment");
    assert.equal(activity.purpose, "Delivery");
    assert.equal(activity.description, "Shipping orders to customers");
    assert.deepEqual(activity.dataCategories, ["name", "address", "phone"]);
    assert.equal(activity.legalBasis, "consent");
    assert.deepEqual(activity.recipients, [
      { name: "BlueDart", role: "processor", country: "IN" },
      { name: "Shopify", role: "processor", country: "CA" },
      { name: "Payments Ltd", role: "joint_fiduciary" },
    ]);
    assert.equal(activity.storageLocation, "AWS ap-south-1 (Mumbai)");
    assert.equal(activity.crossesBorder, true);
    assert.deepEqual(activity.destinationCountries, ["CA", "US"]);
    assert.equal(activity.createdAt, t.clock.now());
    assert.equal(activity.updatedAt, t.clock.now());
    assert.equal(activity.archivedAt, null);

    const read = await get(viewerA, activity.activityId);
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json(), activity);
    // What other domains read (retention policies that point at an activity).
    const stored = await findProcessingActivity(t.db, a.org.organizationId, activity.activityId);
    assert.equal(stored?.purpose, "Delivery");
    assert.equal(stored?.archivedAt, null);
    assert.equal(await findProcessingActivity(t.db, b.org.organizationId, activity.activityId), undefined);

    // Optional fields default to none.
    const plain = await createOk(adminA);
    assert.equal(plain.description, null);
    assert.deepEqual(plain.recipients, []);
    assert.deepEqual(plain.destinationCountries, []);
  });

  test("each of the five legal bases is accepted; anything else is 400 naming legalBasis", async () => {
    for (const legalBasis of [
      "consent",
      "deemed_consent",
      "legal_obligation",
      "vital_interest",
      "public_task",
    ])
      assert.equal((await createOk(adminA, { legalBasis })).legalBasis, legalBasis);
    for (const legalBasis of ["contract", "legitimate_interest", "", "CONSENT", 1, null])
      assertApiError(await create(adminA, { ...VALID, legalBasis }), 400, "VALIDATION_ERROR", {
        field: "legalBasis",
        message: /legalBasis/,
      });
  });

  test("destinations are required exactly when the data crosses the border", async () => {
    assertApiError(await create(adminA, { ...VALID, crossesBorder: true }), 400, "VALIDATION_ERROR", {
      field: "destinationCountries",
      message: /at least one country when crossesBorder is true/,
    });
    assertApiError(
      await create(adminA, { ...VALID, crossesBorder: false, destinationCountries: ["US"] }),
      400,
      "VALIDATION_ERROR",
      { field: "destinationCountries", message: /empty when crossesBorder is false/ },
    );
    assertApiError(
      await create(adminA, { ...VALID, crossesBorder: true, destinationCountries: [] }),
      400,
      "VALIDATION_ERROR",
      { field: "destinationCountries" },
    );
    const { crossesBorder: _omitted, ...noFlag } = VALID;
    assertApiError(await create(adminA, noFlag), 400, "VALIDATION_ERROR", { field: "crossesBorder" });
  });

  test("country codes must be assigned ISO 3166-1 alpha-2 codes outside India, each once", async () => {
    const crossing = { ...VALID, crossesBorder: true };
    const cases: [unknown[], string, RegExp?][] = [
      [["us"], "destinationCountries[0]"],
      [["USA"], "destinationCountries[0]"],
      [["US", "XX"], "destinationCountries[1]", /ISO 3166-1/],
      [["UK"], "destinationCountries[0]", /ISO 3166-1/],
      [["EU"], "destinationCountries[0]", /ISO 3166-1/],
      [["IN"], "destinationCountries[0]", /outside India/],
      [["SG", "SG"], "destinationCountries[1]", /repeats SG/],
      [[7], "destinationCountries[0]"],
    ];
    for (const [destinationCountries, field, message] of cases)
      assertApiError(
        await create(adminA, { ...crossing, destinationCountries }),
        400,
        "VALIDATION_ERROR",
        message ? { field, message } : { field },
      );
    // A recipient's country: assigned, and (outside India) among the destinations.
    assertApiError(
      await create(adminA, {
        ...crossing,
        destinationCountries: ["US"],
        recipients: [{ name: "X", role: "processor", country: "ZZ" }],
      }),
      400,
      "VALIDATION_ERROR",
      { field: "recipients[0].country", message: /ISO 3166-1/ },
    );
    assertApiError(
      await create(adminA, {
        ...VALID,
        recipients: [
          { name: "Local", role: "recipient", country: "IN" },
          { name: "Abroad", role: "processor", country: "SG" },
        ],
      }),
      400,
      "VALIDATION_ERROR",
      { field: "recipients[1].country", message: /SG, outside India/ },
    );
    const ok = await createOk(adminA, {
      ...crossing,
      destinationCountries: ["SG", "AE"],
      recipients: [{ name: "Abroad", role: "processor", country: "SG" }],
    });
    assert.deepEqual(ok.destinationCountries, ["SG", "AE"]);
  });

  test("the other fields are validated and named; unknown fields are ignored", async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "x".repeat(201) }, "name"],
      [{ name: undefined }, "name"],
      [{ purpose: "a|b" }, "purpose"],
      [{ purpose: 3 }, "purpose"],
      [{ description: "  " }, "description"],
      [{ dataCategories: [] }, "dataCategories"],
      [{ dataCategories: "email" }, "dataCategories"],
      [{ dataCategories: ["email", "email"] }, "dataCategories[1]"],
      [{ dataCategories: ["a,b"] }, "dataCategories[0]"],
      [{ dataCategories: [" "] }, "dataCategories[0]"],
      [{ storageLocation: "" }, "storageLocation"],
      [{ crossesBorder: "yes" }, "crossesBorder"],
      [{ recipients: [{ name: "X", role: "controller" }] }, "recipients[0].role"],
      [{ recipients: [{ role: "processor" }] }, "recipients[0].name"],
      [
        {
          recipients: [
            { name: "X", role: "processor" },
            { name: "X", role: "processor" },
          ],
        },
        "recipients[1]",
      ],
    ];
    for (const [change, field] of bad) {
      const payload: Record<string, unknown> = { ...VALID, ...change };
      for (const key of Object.keys(change)) if (change[key] === undefined) delete payload[key];
      assertApiError(await create(adminA, payload), 400, "VALIDATION_ERROR", { field });
    }
    // Request objects stay open (the contract's rule): a field this version does not know is
    // ignored, neither stored nor answered.
    const res = await create(adminA, { ...VALID, controllerName: "ignored", retention: { days: 3 } });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json() as Record<string, unknown>;
    assert.equal(body.controllerName, undefined);
    assert.equal(body.retention, undefined);
    const stored = await findProcessingActivity(t.db, a.org.organizationId, body.activityId as string);
    assert.ok(stored && !("controllerName" in stored));
  });

  test("PATCH changes only what it names, is validated as a whole after the merge, and is on the chain", async () => {
    const activity = await createOk(adminA, { description: "Initial" });
    t.clock.advance(5_000);
    const res = await patch(dpoA, activity.activityId, {
      name: "Order shipping",
      legalBasis: "legal_obligation",
    });
    assert.equal(res.statusCode, 200, res.body);
    const updated = res.json() as Activity;
    assert.equal(updated.name, "Order shipping");
    assert.equal(updated.legalBasis, "legal_obligation");
    assert.equal(updated.purpose, activity.purpose);
    assert.equal(updated.description, "Initial");
    assert.equal(updated.createdAt, activity.createdAt);
    assert.equal(updated.updatedAt, t.clock.now());

    // crossesBorder true needs destinations, given now or already stored.
    assertApiError(
      await patch(adminA, activity.activityId, { crossesBorder: true }),
      400,
      "VALIDATION_ERROR",
      { field: "destinationCountries" },
    );
    assertApiError(
      await patch(adminA, activity.activityId, { destinationCountries: ["US"] }),
      400,
      "VALIDATION_ERROR",
      { field: "destinationCountries", message: /empty when crossesBorder is false/ },
    );
    const crossing = (
      await patch(adminA, activity.activityId, { crossesBorder: true, destinationCountries: ["US", "DE"] })
    ).json() as Activity;
    assert.deepEqual(crossing.destinationCountries, ["US", "DE"]);
    // A recipient abroad must be among the destinations already stored.
    assertApiError(
      await patch(adminA, activity.activityId, {
        recipients: [{ name: "Y", role: "recipient", country: "FR" }],
      }),
      400,
      "VALIDATION_ERROR",
      { field: "recipients[0].country" },
    );
    const withRecipient = (
      await patch(adminA, activity.activityId, {
        recipients: [{ name: "Y", role: "recipient", country: "DE" }],
      })
    ).json() as Activity;
    assert.deepEqual(withRecipient.recipients, [{ name: "Y", role: "recipient", country: "DE" }]);
    // Turning the border off while a recipient abroad remains is refused; clearing both works.
    assertApiError(
      await patch(adminA, activity.activityId, { crossesBorder: false }),
      400,
      "VALIDATION_ERROR",
      { field: "recipients[0].country" },
    );
    t.clock.advance(1_000);
    const home = (
      await patch(adminA, activity.activityId, { crossesBorder: false, recipients: null, description: null })
    ).json() as Activity;
    assert.equal(home.crossesBorder, false);
    assert.deepEqual(home.destinationCountries, [], "turning crossesBorder off clears the destinations");
    assert.deepEqual(home.recipients, []);
    assert.equal(home.description, null);

    // Bad values name their field; required fields cannot be cleared; an empty update is refused.
    assertApiError(
      await patch(adminA, activity.activityId, { legalBasis: "contract" }),
      400,
      "VALIDATION_ERROR",
      {
        field: "legalBasis",
      },
    );
    assertApiError(await patch(adminA, activity.activityId, { name: null }), 400, "VALIDATION_ERROR", {
      field: "name",
    });
    assertApiError(await patch(adminA, activity.activityId, {}), 400, "VALIDATION_ERROR", { field: "body" });
    assertApiError(await patch(adminA, activity.activityId, { unknownField: 1 }), 400, "VALIDATION_ERROR", {
      field: "body",
    });

    // An update that changes nothing answers the activity as it is, with no chain entry.
    const before = await chainEntries(a.org.organizationId, activity.activityId);
    t.clock.advance(1_000);
    const same = await patch(adminA, activity.activityId, { name: "Order shipping", unknownField: 2 });
    assert.equal(same.statusCode, 200, same.body);
    assert.deepEqual(same.json(), home);
    const entries = await chainEntries(a.org.organizationId, activity.activityId);
    assert.equal(entries.length, before.length);

    const session = await t.request({ method: "GET", url: "/api/v1/staff/session", headers: dpoA });
    const dpoId = (session.json() as { staffId: string }).staffId;
    assert.deepEqual(
      entries.map((e) => e.type),
      [
        "ropa.activity_created",
        "ropa.activity_updated",
        "ropa.activity_updated",
        "ropa.activity_updated",
        "ropa.activity_updated",
      ],
    );
    assert.deepEqual(entries[1]!.payload.fields, ["name", "legalBasis"]);
    assert.deepEqual(entries[1]!.payload.actor, { kind: "staff", id: dpoId });
    assert.equal(entries[1]!.at, updated.updatedAt);
    assert.deepEqual(entries[4]!.payload.fields, [
      "description",
      "recipients",
      "crossesBorder",
      "destinationCountries",
    ]);
    // The chain holds digests and names, not the text itself.
    assert.ok(!JSON.stringify(entries).includes("Order shipping"));
    assert.ok(!JSON.stringify(entries).includes("Initial"));
  });

  test("archive and restore are idempotent, recorded once each, and an archived activity is read-only", async () => {
    const activity = await createOk(adminA);
    t.clock.advance(2_000);
    const first = await archive(dpoA, activity.activityId);
    assert.equal(first.statusCode, 200, first.body);
    const archived = first.json() as Activity;
    assert.equal(archived.archivedAt, t.clock.now());
    assert.equal(archived.updatedAt, t.clock.now());
    t.clock.advance(2_000);
    const again = await archive(adminA, activity.activityId);
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), archived, "a second archive answers the activity unchanged");

    assertApiError(await patch(adminA, activity.activityId, { name: "Changed" }), 409, "CONFLICT", {
      message: /archived/,
    });
    // Still readable, archived or not.
    assert.equal((await get(viewerA, activity.activityId)).statusCode, 200);

    const restored = (await restore(adminA, activity.activityId)).json() as Activity;
    assert.equal(restored.archivedAt, null);
    assert.equal(restored.updatedAt, t.clock.now());
    const restoredAgain = await restore(adminA, activity.activityId);
    assert.equal(restoredAgain.statusCode, 200);
    assert.deepEqual(restoredAgain.json(), restored);

    const entries = await chainEntries(a.org.organizationId, activity.activityId);
    assert.deepEqual(
      entries.map((e) => [e.type, e.payload.fields, e.payload.archivedAt]),
      [
        [
          "ropa.activity_created",
          ["name", "purpose", "dataCategories", "legalBasis", "storageLocation", "crossesBorder"],
          null,
        ],
        ["ropa.activity_archived", ["archivedAt"], archived.archivedAt],
        ["ropa.activity_restored", ["archivedAt"], null],
      ],
    );
  });

  test("another organisation's activity, or an unknown one, is 404 on every route and left untouched", async () => {
    const activity = await createOk(adminA);
    for (const headers of [adminB, bearer(b.apiKey)]) {
      assertApiError(await get(headers, activity.activityId), 404, "NOT_FOUND");
      assertApiError(await patch(headers, activity.activityId, { name: "Stolen" }), 404, "NOT_FOUND");
      assertApiError(await archive(headers, activity.activityId), 404, "NOT_FOUND");
      assertApiError(await restore(headers, activity.activityId), 404, "NOT_FOUND");
      const listed = (await list(headers)).json() as { activities: Activity[] };
      assert.ok(!listed.activities.some((x) => x.activityId === activity.activityId));
    }
    const unknown = "act_00000000000000000000";
    assertApiError(await get(adminA, unknown), 404, "NOT_FOUND");
    assertApiError(await patch(adminA, unknown, { name: "x" }), 404, "NOT_FOUND");
    assertApiError(await archive(adminA, unknown), 404, "NOT_FOUND");
    assertApiError(await get(adminA, "not-an-id"), 400, "VALIDATION_ERROR");
    const stored = await findProcessingActivity(t.db, a.org.organizationId, activity.activityId);
    assert.equal(stored?.name, VALID.name);
    assert.equal(stored?.archivedAt, null);
  });

  test("a viewer reads but cannot write (403); admin, dpo and the service key can; CSRF is needed", async () => {
    const activity = await createOk(adminA);
    assertApiError(await create(viewerA, VALID), 403, "FORBIDDEN");
    assertApiError(await patch(viewerA, activity.activityId, { name: "v" }), 403, "FORBIDDEN");
    assertApiError(await archive(viewerA, activity.activityId), 403, "FORBIDDEN");
    assertApiError(await restore(viewerA, activity.activityId), 403, "FORBIDDEN");
    assert.equal((await list(viewerA)).statusCode, 200);
    assert.equal((await get(viewerA, activity.activityId)).statusCode, 200);
    assert.equal(
      (await findProcessingActivity(t.db, a.org.organizationId, activity.activityId))?.name,
      VALID.name,
    );

    const { "x-csrf-token": _csrf, ...cookieOnly } = adminA;
    assertApiError(await create(cookieOnly, VALID), 403, "FORBIDDEN");
    assertApiError(await patch(cookieOnly, activity.activityId, { name: "c" }), 403, "FORBIDDEN");

    const byKey = await createOk(bearer(a.apiKey), { name: "By key" });
    const patched = await patch(bearer(a.apiKey), byKey.activityId, { purpose: "Billing" });
    assert.equal(patched.statusCode, 200, patched.body);
    const entries = await chainEntries(a.org.organizationId, byKey.activityId);
    assert.deepEqual(entries[1]!.payload.actor, { kind: "service", id: a.apiKeyId });
    assertApiError(await list({}), 401, "UNAUTHORIZED");
  });

  test("Idempotency-Key: a retried create returns the first activity and records it once", async () => {
    const headers = { ...adminA, "idempotency-key": "ropa-create-1" };
    const payload = { ...VALID, name: "Retried" };
    const first = await create(headers, payload);
    assert.equal(first.statusCode, 201, first.body);
    const replay = await create(headers, payload);
    assert.equal(replay.statusCode, 201, replay.body);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(replay.body, first.body);
    assertApiError(await create(headers, { ...payload, name: "Other" }), 409, "CONFLICT");
    const rows = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM processing_activities WHERE organization_id = $1 AND name = 'Retried'",
      [a.org.organizationId],
    );
    assert.equal(rows[0]!.n, 1);
    const id = (first.json() as Activity).activityId;
    assert.equal((await chainEntries(a.org.organizationId, id)).length, 1);
  });

  test("the list is newest first, paged, active by default, filtered by archived and crossesBorder", async () => {
    const t2 = await startTestApp();
    try {
      const org = await seedOrganization(t2);
      const admin = (await signIn(t2, org, "admin")).headers;
      const made: Activity[] = [];
      for (let i = 0; i < 7; i++) {
        if (i % 2 === 0) t2.clock.advance(1_000); // some at the same instant: ties broken by id
        const crossing = i % 3 === 0;
        const res = await t2.request({
          method: "POST",
          url: ACTIVITIES,
          headers: admin,
          payload: {
            ...VALID,
            name: `activity ${i}`,
            crossesBorder: crossing,
            ...(crossing ? { destinationCountries: ["US"] } : {}),
          },
        });
        assert.equal(res.statusCode, 201, res.body);
        made.push(res.json() as Activity);
      }
      const archivedIds = new Set([made[1]!.activityId, made[3]!.activityId]);
      for (const id of archivedIds) {
        const res = await t2.request({ method: "POST", url: `${ACTIVITIES}/${id}/archive`, headers: admin });
        assert.equal(res.statusCode, 200, res.body);
      }
      const newestFirst = [...made]
        .sort((x, y) => y.createdAt - x.createdAt || (y.activityId < x.activityId ? -1 : 1))
        .map((x) => x.activityId);
      const walk = async (query: string) => {
        const seen: Activity[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const url: string = `${ACTIVITIES}?limit=2${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
          const res = await t2.request({ method: "GET", url, headers: admin });
          assert.equal(res.statusCode, 200, res.body);
          const page = res.json() as { activities: Activity[]; nextCursor: string | null };
          seen.push(...page.activities);
          cursor = page.nextCursor;
          pages += 1;
        } while (cursor && pages < 10);
        return seen.map((x) => x.activityId);
      };
      const active = newestFirst.filter((id) => !archivedIds.has(id));
      assert.deepEqual(await walk(""), active);
      assert.deepEqual(await walk("&archived=false"), active);
      assert.deepEqual(
        await walk("&archived=true"),
        newestFirst.filter((id) => archivedIds.has(id)),
      );
      const crossingIds = new Set(made.filter((x) => x.crossesBorder).map((x) => x.activityId));
      assert.deepEqual(
        await walk("&crossesBorder=true"),
        active.filter((id) => crossingIds.has(id)),
      );
      assert.deepEqual(
        await walk("&crossesBorder=false"),
        active.filter((id) => !crossingIds.has(id)),
      );
      assertApiError(
        await t2.request({ method: "GET", url: `${ACTIVITIES}?archived=maybe`, headers: admin }),
        400,
        "VALIDATION_ERROR",
        { field: "archived" },
      );
      const first = (
        await t2.request({ method: "GET", url: `${ACTIVITIES}?limit=1`, headers: admin })
      ).json() as {
        nextCursor: string;
      };
      assertApiError(
        await t2.request({
          method: "GET",
          url: `${ACTIVITIES}?archived=true&cursor=${encodeURIComponent(first.nextCursor)}`,
          headers: admin,
        }),
        400,
        "VALIDATION_ERROR",
        { field: "cursor" },
      );
    } finally {
      await t2.close();
    }
  });
});
