// Nomination (DPDP s. 14): one active nomination per principal; PUT creates it or updates it in
// place, DELETE revokes it ({revoked}) and is a successful no-op when none is active. Every change
// is recorded, audited and raised as nomination.changed without the nominee's contact details.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { auditEntriesFor, NOMINATION, outboxEvents, principalToken } from "../support/rights-helpers.js";

type NominationBody = { nominationId: string; nomineeName: string; nomineeContact: string; status: string };

describe("nomination", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
  });
  after(() => t.close());

  const put = (token: string, payload: unknown) =>
    t.request({
      method: "PUT",
      url: NOMINATION,
      headers: bearer(token),
      payload: payload as Record<string, unknown>,
    });
  const get = async (token: string) => {
    const res = await t.request({ method: "GET", url: NOMINATION, headers: bearer(token) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as NominationBody | null;
  };
  const del = (token: string) => t.request({ method: "DELETE", url: NOMINATION, headers: bearer(token) });
  const rows = (externalId: string) =>
    t.db.query<{ nomination_id: string; status: string }>(
      `SELECT n.nomination_id, n.status FROM nominations n JOIN principals p
         ON p.organization_id = n.organization_id AND p.principal_id = n.principal_id WHERE p.external_id = $1`,
      [externalId],
    );

  test("none at first; PUT creates; PUT again updates the same nomination; unchanged PUT changes nothing", async () => {
    const token = await principalToken(t, seeded, "nom-alice");
    assert.equal(await get(token), null);

    const created = await put(token, { nomineeName: "Ravi Kumar", nomineeContact: "ravi@example.in" });
    assert.equal(created.statusCode, 200, created.body);
    const first = created.json() as NominationBody;
    assert.match(first.nominationId, /^nom_/);
    assert.deepEqual(
      { ...first, nominationId: "" },
      {
        nominationId: "",
        nomineeName: "Ravi Kumar",
        nomineeContact: "ravi@example.in",
        status: "active",
      },
    );
    assert.deepEqual(await get(token), first);

    const updated = (
      await put(token, { nomineeName: "Ravi Kumar", nomineeContact: "+91 98765 43210" })
    ).json() as NominationBody;
    assert.equal(updated.nominationId, first.nominationId);
    assert.equal(updated.nomineeContact, "+91 98765 43210");
    assert.deepEqual(await get(token), updated);

    const same = (await put(token, { nomineeName: "Ravi Kumar", nomineeContact: "+91 98765 43210" })).json();
    assert.deepEqual(same, updated);
    assert.equal((await rows("nom-alice")).length, 1);

    const events = (await outboxEvents(t.db, seeded.org.organizationId, "nomination.changed")).filter(
      (e) => e.payload.nominationId === first.nominationId,
    );
    assert.deepEqual(events.map((e) => e.payload.change).sort(), ["created", "updated"]);
    assert.ok(events.every((e) => e.payload.externalId === "nom-alice"));
    // The number in any written form; a bare "98765" can occur in ids and hashes by chance.
    assert.doesNotMatch(
      JSON.stringify(events),
      /98765\D{0,3}43210/,
      "the nominee's contact stays out of the outbox",
    );
    const audit = await auditEntriesFor(t.db, seeded.org.organizationId, first.nominationId);
    assert.deepEqual(
      audit.map((a) => [a.payload.from, a.payload.to, a.payload.change]),
      [
        [null, "active", "created"],
        ["active", "active", "updated"],
      ],
    );
  });

  test("DELETE revokes ({revoked: true}); again, or with none, is a 200 no-op ({revoked: false})", async () => {
    const token = await principalToken(t, seeded, "nom-bob");
    assert.deepEqual((await del(token)).json(), { revoked: false });
    const nomination = (
      await put(token, { nomineeName: "Asha", nomineeContact: "asha@example.in" })
    ).json() as NominationBody;
    const revoked = await del(token);
    assert.equal(revoked.statusCode, 200);
    assert.deepEqual(revoked.json(), { revoked: true });
    assert.equal(await get(token), null);
    assert.deepEqual((await del(token)).json(), { revoked: false });

    // A later PUT makes a new nomination; the revoked one stays revoked.
    const next = (
      await put(token, { nomineeName: "Asha", nomineeContact: "asha@example.in" })
    ).json() as NominationBody;
    assert.notEqual(next.nominationId, nomination.nominationId);
    assert.deepEqual((await rows("nom-bob")).map((r) => r.status).sort(), ["active", "revoked"]);
    const revokedEvent = (await outboxEvents(t.db, seeded.org.organizationId, "nomination.changed")).find(
      (e) => e.payload.nominationId === nomination.nominationId && e.payload.change === "revoked",
    );
    assert.equal(revokedEvent?.payload.status, "revoked");
  });

  test("concurrent PUTs leave exactly one active nomination", async () => {
    const token = await principalToken(t, seeded, "nom-carol");
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        put(token, { nomineeName: `Nominee ${i}`, nomineeContact: `n${i}@example.in` }),
      ),
    );
    for (const res of responses) assert.equal(res.statusCode, 200, res.body);
    const ids = new Set(responses.map((r) => (r.json() as NominationBody).nominationId));
    assert.equal(ids.size, 1);
    const active = (await rows("nom-carol")).filter((r) => r.status === "active");
    assert.equal(active.length, 1);
  });

  test("bad input: empty or blank nominee fields, or an unreachable contact → VALIDATION_ERROR naming the field", async () => {
    const token = await principalToken(t, seeded, "nom-dave");
    const cases: [Record<string, unknown>, string][] = [
      [{ nomineeName: "", nomineeContact: "a@example.in" }, "nomineeName"],
      [{ nomineeName: "   ", nomineeContact: "a@example.in" }, "nomineeName"],
      [{ nomineeName: "A", nomineeContact: "" }, "nomineeContact"],
      [{ nomineeName: "A", nomineeContact: " \t" }, "nomineeContact"],
      [{ nomineeName: "A" }, "nomineeContact"],
      [{ nomineeContact: "a@example.in" }, "nomineeName"],
      [{ nomineeName: "A", nomineeContact: "call me maybe" }, "nomineeContact"],
      [{ nomineeName: "A", nomineeContact: "12" }, "nomineeContact"],
      [{ nomineeName: 7, nomineeContact: "a@example.in" }, "nomineeName"],
    ];
    for (const [payload, field] of cases)
      assertApiError(await put(token, payload), 400, "VALIDATION_ERROR", { field });
    assert.equal(await get(token), null);
  });

  test("an expired principal token is 401 on every nomination route", async () => {
    const token = await principalToken(t, seeded, "nom-erin");
    t.clock.advance(16 * 60_000);
    assertApiError(
      await t.request({ method: "GET", url: NOMINATION, headers: bearer(token) }),
      401,
      "UNAUTHORIZED",
    );
    assertApiError(
      await put(token, { nomineeName: "A", nomineeContact: "a@example.in" }),
      401,
      "UNAUTHORIZED",
    );
    assertApiError(await del(token), 401, "UNAUTHORIZED");
  });
});
