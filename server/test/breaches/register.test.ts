// The breach register's staff routes and the partner route: recording (idempotent, drills),
// validation naming the field, roles, tenant isolation, updates of the Board and CERT-In report
// times, the status each timestamp gives, the lists' filters and paging, and drills kept off
// `GET /api/v1/breaches`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
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
import { outboxEvents } from "../support/rights-helpers.js";
import { ok, staffClient } from "../support/staff-client.js";

const STAFF = "/api/v1/staff/breaches";
const PARTNER = "/api/v1/breaches";
const HOUR = 3_600_000;

type StaffBreach = {
  breachId: string;
  description: string;
  discoveredAt: number;
  occurredAt: number | null;
  affectedPurposes: string[];
  affectedDataCategories: string[];
  mitigation: string | null;
  drill: boolean;
  status: string;
  principalNotificationDueAt: number;
  boardReportDueAt: number;
  certInReportDueAt: number;
  reportedToUserAt: number | null;
  reportedToBoardAt: number | null;
  detailedReportSubmittedAt: number | null;
  certInReportSubmittedAt: number | null;
  principalNotificationDueState: string;
  boardReportDueState: string;
  affectedPrincipals: { total: number; notified: number; pending: number };
  recordedBy: string;
};

describe("breach register", () => {
  let t: TestApp;
  let org: SeededOrg;
  let other: SeededOrg;
  let staff: ReturnType<typeof staffClient>;

  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    other = await seedOrganization(t);
    staff = staffClient(t);
  });
  after(() => t.close());

  const record = (body: Record<string, unknown>, seeded = org, headers: Record<string, string> = {}) =>
    t.request({
      method: "POST",
      url: STAFF,
      headers: { ...bearer(seeded.apiKey), ...headers },
      payload: body,
    });
  const patch = (breachId: string, body: Record<string, unknown>, seeded = org) =>
    t.request({
      method: "PATCH",
      url: `${STAFF}/${breachId}`,
      headers: bearer(seeded.apiKey),
      payload: body,
    });
  const get = async (breachId: string) =>
    ok<StaffBreach>(
      await t.request({ method: "GET", url: `${STAFF}/${breachId}`, headers: bearer(org.apiKey) }),
    );

  test("record: clocks from discovery, chain entry, breach.recorded without the description; idempotent", async () => {
    const discoveredAt = t.clock.now() - 2 * HOUR;
    const body = {
      description: "Backup bucket readable without authentication",
      discoveredAt,
      occurredAt: discoveredAt - 24 * HOUR,
      affectedPurposes: ["Marketing", "Account", "Marketing"],
      affectedDataCategories: ["email", "name"],
    };
    const first = await record(body, org, { "idempotency-key": "breach-1" });
    const breach = ok<StaffBreach>(first, 201);
    assert.match(breach.breachId, /^brc_/);
    assert.equal(breach.principalNotificationDueAt, discoveredAt + 24 * HOUR, "default window 24 hours");
    assert.equal(breach.boardReportDueAt, discoveredAt + 72 * HOUR);
    assert.equal(breach.certInReportDueAt, discoveredAt + 6 * HOUR);
    assert.deepEqual(breach.affectedPurposes, ["Marketing", "Account"], "duplicates dropped");
    assert.equal(breach.status, "reported_user_pending");
    assert.equal(breach.drill, false);
    assert.equal(breach.principalNotificationDueState, "on_time");
    assert.equal(breach.boardReportDueState, "on_time");
    assert.deepEqual(breach.affectedPrincipals, { total: 0, notified: 0, pending: 0 });
    assert.equal(breach.recordedBy, org.apiKeyId);

    const replay = await record(body, org, { "idempotency-key": "breach-1" });
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal((replay.json() as StaffBreach).breachId, breach.breachId);
    assertApiError(
      await record({ ...body, description: "another" }, org, { "idempotency-key": "breach-1" }),
      409,
      "CONFLICT",
    );
    const [row] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM breaches WHERE organization_id = $1",
      [org.org.organizationId],
    );
    assert.equal(row!.n, 1, "the replay created nothing");

    const events = await outboxEvents(t.db, org.org.organizationId, "breach.recorded");
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.payload, {
      breachId: breach.breachId,
      discoveredAt,
      occurredAt: discoveredAt - 24 * HOUR,
      status: "reported_user_pending",
      principalNotificationDueAt: breach.principalNotificationDueAt,
      boardReportDueAt: breach.boardReportDueAt,
    });
    await linkQueuedOf(t.db, org.org.organizationId, t.clock.now());
    const entries = await t.db.query<{ entry_type: string; payload: string }>(
      "SELECT entry_type, payload FROM audit_entries WHERE organization_id = $1 ORDER BY seq",
      [org.org.organizationId],
    );
    assert.deepEqual(
      entries.map((e) => e.entry_type),
      ["breach.recorded"],
    );
    for (const entry of entries)
      assert.doesNotMatch(String(entry.payload), /Backup bucket/, "no free text on the chain");
  });

  test("validation: 400 naming the field", async () => {
    const now = t.clock.now();
    const base = { description: "x", discoveredAt: now - HOUR };
    const cases: [Record<string, unknown>, string][] = [
      [{ discoveredAt: now }, "description"],
      [{ ...base, description: "   " }, "description"],
      [{ description: "x" }, "discoveredAt"],
      [{ ...base, discoveredAt: now + 60_000 }, "discoveredAt"],
      [{ ...base, discoveredAt: "yesterday" }, "discoveredAt"],
      [{ ...base, occurredAt: now - 30 * 60_000 }, "occurredAt"],
      [{ ...base, occurredAt: now + HOUR }, "occurredAt"],
      [{ ...base, affectedPurposes: ["Ads|Tracking"] }, "affectedPurposes/0"],
      [{ ...base, affectedPurposes: "Marketing" }, "affectedPurposes"],
      [{ ...base, affectedPurposes: [] }, "affectedPurposes"],
      [{ ...base, affectedPurposes: [{ purpose: "Marketing" }] }, "affectedPurposes/0"],
      [{ ...base, affectedDataCategories: ["email,phone"] }, "affectedDataCategories/0"],
      [{ ...base, principalNotificationWindowHours: 73 }, "principalNotificationWindowHours"],
      [{ ...base, drill: "yes" }, "drill"],
    ];
    for (const [body, field] of cases) {
      const res = await record(body);
      const error = assertApiError(res, 400, "VALIDATION_ERROR");
      assert.ok(
        error.field === field || error.field?.replace(/\[(\d+)\]/, "/$1") === field,
        `${JSON.stringify(body)} names ${field}: got ${error.field} (${error.error})`,
      );
    }
  });

  test("update: Board report not before discovery, no future times, never unset or moved; status follows", async () => {
    const discoveredAt = t.clock.now() - 10 * HOUR;
    const breach = ok<StaffBreach>(await record({ description: "Laptop stolen", discoveredAt }), 201);
    const id = breach.breachId;
    const bad: [Record<string, unknown>, string, number, "VALIDATION_ERROR"][] = [
      [{ reportedToBoardAt: discoveredAt - 1 }, "reportedToBoardAt", 400, "VALIDATION_ERROR"],
      [{ reportedToBoardAt: t.clock.now() + 1000 }, "reportedToBoardAt", 400, "VALIDATION_ERROR"],
      [{ certInReportSubmittedAt: t.clock.now() + 1000 }, "certInReportSubmittedAt", 400, "VALIDATION_ERROR"],
      [
        { detailedReportSubmittedAt: discoveredAt + HOUR },
        "detailedReportSubmittedAt",
        400,
        "VALIDATION_ERROR",
      ],
      [
        { reportedToBoardAt: discoveredAt + 2 * HOUR, detailedReportSubmittedAt: discoveredAt + HOUR },
        "detailedReportSubmittedAt",
        400,
        "VALIDATION_ERROR",
      ],
      [{ reportedToBoardAt: null }, "reportedToBoardAt", 400, "VALIDATION_ERROR"],
    ];
    for (const [body, field, status, code] of bad)
      assertApiError(await patch(id, body), status, code, { field });
    assertApiError(await patch(id, {}), 400, "VALIDATION_ERROR");

    const intimated = ok<StaffBreach>(
      await patch(id, {
        reportedToBoardAt: discoveredAt + HOUR,
        certInReportSubmittedAt: discoveredAt + 5 * HOUR,
      }),
    );
    assert.equal(intimated.reportedToBoardAt, discoveredAt + HOUR);
    assert.equal(intimated.certInReportSubmittedAt, discoveredAt + 5 * HOUR);
    assert.equal(intimated.status, "reported_user_pending", "principals are still to be told");
    // The same value again is a no-op; another is a conflict naming the field.
    ok<StaffBreach>(await patch(id, { reportedToBoardAt: discoveredAt + HOUR }));
    assertApiError(await patch(id, { reportedToBoardAt: discoveredAt + 2 * HOUR }), 409, "CONFLICT", {
      field: "reportedToBoardAt",
    });
    const detailed = ok<StaffBreach>(
      await patch(id, {
        detailedReportSubmittedAt: discoveredAt + 9 * HOUR,
        mitigation: "Disk encrypted; keys rotated",
      }),
    );
    assert.equal(detailed.boardReportDueState, "met");
    assert.deepEqual(await get(id), detailed, "the read shows what the update answered");
    assert.equal(detailed.mitigation, "Disk encrypted; keys rotated");
    assert.equal(detailed.status, "reported_user_pending");

    // Another organisation's breach is 404 on every route; viewers may read but not write.
    assertApiError(await patch(id, { mitigation: "x" }, other), 404, "NOT_FOUND");
    assertApiError(
      await t.request({ method: "GET", url: `${STAFF}/${id}`, headers: bearer(other.apiKey) }),
      404,
      "NOT_FOUND",
    );
    assertApiError(
      await t.request({
        method: "POST",
        url: `${STAFF}/${id}/principals`,
        headers: bearer(other.apiKey),
        payload: { purposes: ["Marketing"] },
      }),
      404,
      "NOT_FOUND",
    );
    assertApiError(
      await t.request({
        method: "POST",
        url: `${STAFF}/${id}/notify-principals`,
        headers: bearer(other.apiKey),
        payload: { consequences: "c", safetyMeasures: "s", contact: "dpo@example.com" },
      }),
      404,
      "NOT_FOUND",
    );
    const viewerRead = ok<StaffBreach>(await staff(org, "viewer", "GET", `${STAFF}/${id}`));
    assert.equal(viewerRead.breachId, id);
    assertApiError(
      await staff(org, "viewer", "POST", STAFF, { description: "x", discoveredAt: t.clock.now() }),
      403,
      "FORBIDDEN",
    );
    const dpoPatch = await staff(org, "dpo", "POST", `${STAFF}/${id}/principals`, {
      purposes: ["Marketing"],
    });
    assert.equal(dpoPatch.statusCode, 200, dpoPatch.body);
    assertApiError(
      await staff(org, "viewer", "POST", `${STAFF}/${id}/principals`, { purposes: ["Marketing"] }),
      403,
      "FORBIDDEN",
    );
  });

  test("lists: filters, paging, and the partner route leaves drills out", async () => {
    const seeded = await seedOrganization(t);
    const now = t.clock.now();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await record({ description: `real ${i}`, discoveredAt: now - (10 + i) * HOUR }, seeded);
      ids.push(ok<StaffBreach>(res, 201).breachId);
    }
    const drill = ok<StaffBreach>(
      await record({ description: "tabletop exercise", discoveredAt: now - HOUR, drill: true }, seeded),
      201,
    );
    assert.equal(drill.drill, true);
    assert.deepEqual(
      await outboxEvents(t.db, seeded.org.organizationId, "breach.recorded").then((e) => e.length),
      5,
    );

    const list = async (query: string) =>
      ok<{ breaches: StaffBreach[]; nextCursor: string | null }>(
        await t.request({ method: "GET", url: `${STAFF}${query}`, headers: bearer(seeded.apiKey) }),
      );
    const all = await list("");
    assert.deepEqual(
      all.breaches.map((b) => b.breachId),
      [drill.breachId, ...ids],
      "newest discovery first",
    );
    assert.deepEqual(
      (await list("?drill=true")).breaches.map((b) => b.breachId),
      [drill.breachId],
    );
    assert.equal((await list("?drill=false")).breaches.length, 5);
    assert.equal((await list("?status=reported_board_done")).breaches.length, 0);
    // Discovered 10-14 hours ago with a 24-hour window: due soon from 19.2 hours, so none yet.
    assert.equal((await list("?dueState=due_soon")).breaches.length, 0);
    assert.equal((await list("?dueState=on_time")).breaches.length, 6);
    t.clock.advance(9.5 * HOUR);
    const dueSoon = await list("?dueState=due_soon&drill=false");
    assert.ok(dueSoon.breaches.every((b) => b.principalNotificationDueState === "due_soon"));
    assert.equal(dueSoon.breaches.length, 5);
    assert.equal((await list("?dueState=overdue")).breaches.length, 0);
    t.clock.advance(-9.5 * HOUR);

    assertApiError(
      await t.request({ method: "GET", url: `${STAFF}?dueState=late`, headers: bearer(seeded.apiKey) }),
      400,
      "VALIDATION_ERROR",
      { field: "dueState" },
    );
    const page1 = await list("?limit=2");
    assert.equal(page1.breaches.length, 2);
    assert.ok(page1.nextCursor);
    const page2 = await list(`?limit=2&cursor=${encodeURIComponent(page1.nextCursor!)}`);
    assert.deepEqual(
      page2.breaches.map((b) => b.breachId),
      ids.slice(1, 3),
    );
    assertApiError(
      await t.request({
        method: "GET",
        url: `${STAFF}?limit=2&drill=true&cursor=${encodeURIComponent(page1.nextCursor!)}`,
        headers: bearer(seeded.apiKey),
      }),
      400,
      "VALIDATION_ERROR",
      { field: "cursor" },
    );

    // The partner route: the outline's shape, no drills, optional fields absent until they happen.
    const partner = ok<{ breaches: Record<string, unknown>[]; nextCursor: string | null }>(
      await t.request({ method: "GET", url: PARTNER, headers: bearer(seeded.apiKey) }),
    );
    assert.deepEqual(
      partner.breaches.map((b) => b.breachId),
      ids,
    );
    assert.deepEqual(Object.keys(partner.breaches[0]!).sort(), [
      "boardReportDueAt",
      "breachId",
      "description",
      "discoveredAt",
      "principalNotificationDueAt",
      "status",
    ]);
    const partnerPage = ok<{ breaches: unknown[]; nextCursor: string | null }>(
      await t.request({ method: "GET", url: `${PARTNER}?limit=4`, headers: bearer(seeded.apiKey) }),
    );
    assert.equal(partnerPage.breaches.length, 4);
    const rest = ok<{ breaches: { breachId: string }[]; nextCursor: string | null }>(
      await t.request({
        method: "GET",
        url: `${PARTNER}?limit=4&cursor=${encodeURIComponent(partnerPage.nextCursor!)}`,
        headers: bearer(seeded.apiKey),
      }),
    );
    assert.deepEqual(
      rest.breaches.map((b) => b.breachId),
      [ids[4]],
    );
    assert.equal(rest.nextCursor, null);
    // Staff sessions are not service keys: the partner route wants the key.
    assert.equal((await staff(seeded, "admin", "GET", PARTNER)).statusCode, 401);
  });

  test("while breach_register_api is off the partner route answers 404; the capability is listed as built", async () => {
    const seeded = await seedOrganization(t);
    const admin = await signIn(t, seeded, "admin");
    const listed = ok<{ capabilities: { name: string; enabled: boolean; operations: string[] }[] }>(
      await t.request({ method: "GET", url: "/api/v1/staff/capabilities", headers: admin.headers }),
    );
    const capability = listed.capabilities.find((c) => c.name === "breach_register_api");
    assert.deepEqual(capability && [capability.enabled, capability.operations], [true, ["listBreaches"]]);
    await t.db.transaction((tx) =>
      setCapabilities(tx, seeded.org.organizationId, { breach_register_api: false }),
    );
    assertApiError(
      await t.request({ method: "GET", url: PARTNER, headers: bearer(seeded.apiKey) }),
      404,
      "NOT_FOUND",
    );
    // The staff register is not behind it, and another organisation's partner route is unaffected.
    assert.equal(
      (await t.request({ method: "GET", url: STAFF, headers: bearer(seeded.apiKey) })).statusCode,
      200,
    );
    assert.equal(
      (await t.request({ method: "GET", url: PARTNER, headers: bearer(other.apiKey) })).statusCode,
      200,
    );
    await t.db.transaction((tx) =>
      setCapabilities(tx, seeded.org.organizationId, { breach_register_api: true }),
    );
    assert.equal(
      (await t.request({ method: "GET", url: PARTNER, headers: bearer(seeded.apiKey) })).statusCode,
      200,
    );
  });
});
