// GET /api/v1/staff/principals/lookup: the dashboard's lookup console. A principal found by email
// or externalId, each consent with its evidence and place on the audit chain, the consent events
// oldest first, and the principal's latest nomination.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { LOOKUP_EVENT_LIMIT } from "../../src/consent/lookup.js";
import { assertApiError } from "../support/api-error.js";
import { principal, publishTestNotice, recordConsent } from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { NOMINATION } from "../support/rights-helpers.js";
import { ok, staffClient } from "../support/staff-client.js";

type Lookup = {
  principal: { principalId: string; externalId: string; email: string | null; createdAt: number };
  consents: {
    consentId: string;
    purpose: string;
    status: string;
    chainSeq: number | null;
    auditHash: string;
  }[];
  events: {
    eventId: string;
    consentId: string;
    eventType: string;
    chainSeq: number | null;
    occurredAt: number;
  }[];
  nomination: { nominationId: string; status: string; nomineeName: string } | null;
};

const LOOKUP = "/api/v1/staff/principals/lookup";

describe("staff principal lookup", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;
  let staff: ReturnType<typeof staffClient>;

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
    await publishTestNotice(t, other);
    staff = staffClient(t);
  });
  after(() => t.close());

  const give = async (email: string, purpose: string) =>
    ok<{ consentId: string }>(
      await recordConsent(t, acme, { email, noticeId, purpose, dataTypes: ["email"] }),
      201,
    ).consentId;

  test("answers the principal, consents newest first with chain positions, events oldest first", async () => {
    const user = await principal(t, acme, "lookup-1", "Lookup@Example.com");
    const createdAt = t.clock.now();
    t.clock.advance(1000);
    const account = await give("lookup@example.com", "Account");
    t.clock.advance(1000);
    const marketing = await give("lookup@example.com", "Marketing");
    t.clock.advance(1000);
    const withdrawn = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${account}`,
      headers: bearer(acme.apiKey),
    });
    assert.equal(withdrawn.statusCode, 200, withdrawn.body);

    const body = ok<Lookup>(await staff(acme, "viewer", "GET", `${LOOKUP}?externalId=lookup-1`));
    assert.deepEqual(body.principal, {
      principalId: user.principalId,
      externalId: "lookup-1",
      email: "lookup@example.com",
      createdAt,
    });
    assert.deepEqual(
      body.consents.map((c) => [c.consentId, c.status]),
      [
        [marketing, "active"],
        [account, "withdrawn"],
      ],
    );
    assert.deepEqual(
      body.events.map((e) => [e.consentId, e.eventType]),
      [
        [account, "consent.given"],
        [marketing, "consent.given"],
        [account, "consent.withdrawn"],
      ],
    );
    // Each consent's chainSeq is its latest event's position; positions rise in event order.
    const seqs = body.events.map((e) => e.chainSeq!);
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
    );
    assert.equal(body.consents[0]!.chainSeq, body.events[1]!.chainSeq);
    assert.equal(body.consents[1]!.chainSeq, body.events[2]!.chainSeq);
    const [entry] = await t.db.query<{ entry_type: string; subject_id: string }>(
      "SELECT entry_type, subject_id FROM audit_entries WHERE organization_id = $1 AND seq = $2",
      [acme.org.organizationId, body.consents[1]!.chainSeq],
    );
    assert.equal(entry?.entry_type, "consent.withdrawn");
    assert.equal(body.nomination, null);

    // The same principal by email, in any case.
    const byEmail = ok<Lookup>(await staff(acme, "dpo", "GET", `${LOOKUP}?email=LOOKUP%40example.com`));
    assert.deepEqual(byEmail, body);
  });

  test("an event whose audit entry was deleted (tampering) shows no position, never a made-up one", async () => {
    await principal(t, acme, "lookup-3", "third@example.com");
    await give("third@example.com", "Account");
    const before = ok<Lookup>(await staff(acme, "viewer", "GET", `${LOOKUP}?externalId=lookup-3`));
    const [event] = before.events;
    assert.equal(typeof event!.chainSeq, "number");
    await t.db.query("DELETE FROM audit_entries WHERE organization_id = $1 AND seq = $2", [
      acme.org.organizationId,
      event!.chainSeq,
    ]);
    const after = ok<Lookup>(await staff(acme, "viewer", "GET", `${LOOKUP}?externalId=lookup-3`));
    assert.equal(after.events[0]!.chainSeq, null);
    assert.equal(after.consents[0]!.chainSeq, null);
  });

  test("a consent without events has chainSeq null; the nomination is the latest, even revoked", async () => {
    const user = await principal(t, acme, "lookup-2", "second@example.com");
    const consentId = await give("second@example.com", "Account");
    await t.db.query("DELETE FROM consent_events WHERE organization_id = $1 AND consent_id = $2", [
      acme.org.organizationId,
      consentId,
    ]);
    const put = await t.request({
      method: "PUT",
      url: NOMINATION,
      headers: bearer(user.accessToken),
      payload: { nomineeName: "Asha", nomineeContact: "asha@example.com" },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(
      (await t.request({ method: "DELETE", url: NOMINATION, headers: bearer(user.accessToken) })).statusCode,
      200,
    );
    const body = ok<Lookup>(await staff(acme, "admin", "GET", `${LOOKUP}?externalId=lookup-2`));
    assert.equal(body.consents[0]!.chainSeq, null);
    assert.deepEqual(body.events, []);
    assert.equal(body.nomination?.status, "revoked");
    assert.equal(body.nomination?.nomineeName, "Asha");
  });

  test(`shows at most the newest ${LOOKUP_EVENT_LIMIT} events, oldest of them first`, async () => {
    await principal(t, acme, "lookup-busy", "busy@example.com");
    let first = "";
    for (let i = 0; i < LOOKUP_EVENT_LIMIT / 2 + 1; i++) {
      const id = await give("busy@example.com", "Newsletter");
      if (i === 0) first = id;
      t.clock.advance(1);
      const res = await t.request({
        method: "DELETE",
        url: `/cm/v1/consent/${id}`,
        headers: bearer(acme.apiKey),
      });
      assert.equal(res.statusCode, 200, res.body);
      t.clock.advance(1);
    }
    const body = ok<Lookup>(await staff(acme, "viewer", "GET", `${LOOKUP}?externalId=lookup-busy`));
    assert.equal(body.consents.length, LOOKUP_EVENT_LIMIT / 2 + 1);
    assert.equal(body.events.length, LOOKUP_EVENT_LIMIT);
    // The two oldest events (the first consent's) are the ones left out.
    assert.ok(!body.events.some((e) => e.consentId === first));
    const seqs = body.events.map((e) => e.chainSeq!);
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
    );
  });

  test("another organisation's principal is 404, by externalId and by email", async () => {
    await principal(t, other, "theirs", "theirs@example.com");
    assertApiError(await staff(acme, "admin", "GET", `${LOOKUP}?externalId=theirs`), 404, "NOT_FOUND");
    assertApiError(
      await staff(acme, "admin", "GET", `${LOOKUP}?email=theirs%40example.com`),
      404,
      "NOT_FOUND",
    );
    assertApiError(await staff(acme, "admin", "GET", `${LOOKUP}?externalId=nobody`), 404, "NOT_FOUND");
  });

  test("neither or both of email and externalId is 400 naming the field", async () => {
    assertApiError(await staff(acme, "viewer", "GET", LOOKUP), 400, "VALIDATION_ERROR", { field: "email" });
    assertApiError(
      await staff(acme, "viewer", "GET", `${LOOKUP}?email=a%40example.com&externalId=x`),
      400,
      "VALIDATION_ERROR",
      { field: "externalId" },
    );
    assertApiError(
      await staff(acme, "viewer", "GET", `${LOOKUP}?email=not-an-email`),
      400,
      "VALIDATION_ERROR",
      {
        field: "email",
      },
    );
  });

  test("needs a staff session", async () => {
    assertApiError(
      await t.request({ method: "GET", url: `${LOOKUP}?externalId=lookup-1` }),
      401,
      "UNAUTHORIZED",
    );
    assertApiError(
      await t.request({ method: "GET", url: `${LOOKUP}?externalId=lookup-1`, headers: bearer(acme.apiKey) }),
      401,
      "UNAUTHORIZED",
    );
  });
});
