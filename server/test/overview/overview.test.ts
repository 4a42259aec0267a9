// The staff overview: consents given and withdrawn per calendar day (in the viewer's offset) and
// purpose, the DSR and grievance queues against their deadlines, and Consent Gate decisions, all
// for the session's organisation and the requested days only.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import { anonymousConsent, publishTestNotice } from "../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import {
  DAY,
  fileDsr,
  fileGrievance,
  principalToken,
  STAFF_DSR,
  STAFF_GRIEVANCES,
} from "../support/rights-helpers.js";

const HOUR = 3_600_000;
/** "Now" of every overview read: 2026-11-23 09:00 UTC (14:30 in India). */
const NOW = Date.UTC(2026, 10, 23, 9, 0, 0);
const IST = 330;

type Overview = {
  days: number;
  utcOffsetMinutes: number;
  from: number;
  to: number;
  consentsPerDay: { day: string; purpose: string; given: number; withdrawn: number }[];
  rights: Record<
    "dsr" | "grievances",
    { open: number; dueSoon: number; overdue: number; closedInPeriod: number }
  >;
  gate: { allow: number; deny: number };
};

describe("staff overview", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let viewer: Record<string, string>;
  let otherViewer: Record<string, string>;

  const at = (epochMs: number) => t.clock.set(epochMs);
  const orgId = () => acme.org.organizationId;
  let notices: Map<SeededOrg, string>;
  let serial = 0;

  async function consent(org: SeededOrg, purpose: string): Promise<string> {
    const res = await anonymousConsent(t, {
      organizationId: org.org.organizationId,
      noticeId: notices.get(org),
      purpose,
      dataTypes: ["email"],
      anonymousId: `guest-overview-${(serial += 1)}`,
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().consentId as string;
  }
  async function withdraw(consentId: string): Promise<void> {
    const res = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${consentId}`,
      headers: bearer(acme.apiKey),
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  async function verify(org: SeededOrg, consentId: string, expected: "allow" | "deny"): Promise<void> {
    const res = await t.request({
      method: "POST",
      url: "/api/v1/consent/verify",
      headers: bearer(org.apiKey),
      payload: { consentId },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().decision, expected);
  }
  async function dsr(org = acme): Promise<string> {
    const token = await principalToken(t, org, `dsr-${(serial += 1)}`);
    return (await fileDsr(t, token, { organizationId: org.org.organizationId, type: "summary" })).requestId;
  }
  async function closeDsr(requestId: string): Promise<void> {
    for (const status of ["in_progress", "completed"]) {
      const res = await t.request({
        method: "PATCH",
        url: `${STAFF_DSR}/${requestId}`,
        headers: bearer(acme.apiKey),
        payload: { status },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
  }
  async function grievance(): Promise<string> {
    const token = await principalToken(t, acme, `grievance-${(serial += 1)}`);
    return (await fileGrievance(t, token, { organizationId: orgId(), subject: "s", description: "d" }))
      .grievanceId;
  }
  async function resolveGrievance(grievanceId: string): Promise<void> {
    const res = await t.request({
      method: "POST",
      url: `${STAFF_GRIEVANCES}/${grievanceId}/respond`,
      headers: bearer(acme.apiKey),
      payload: { status: "resolved", response: "Fixed" },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  const overview = (query: string, headers = viewer) =>
    t.request({ method: "GET", url: `/api/v1/staff/overview${query}`, headers });
  const read = async (query: string, headers = viewer): Promise<Overview> => {
    const res = await overview(query, headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Overview;
  };

  before(async () => {
    t = await startTestApp();
    at(NOW - 61 * DAY);
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    notices = new Map([
      [acme, (await publishTestNotice(t, acme)).noticeId],
      [other, (await publishTestNotice(t, other)).noticeId],
    ]);
    // Every response period is the default 30 days, so an item filed at X is due at X + 30 days.
    // In time order, as things happen:
    at(NOW - 60 * DAY);
    const closedLongAgo = await dsr();
    at(NOW - 45 * DAY);
    const old = await consent(acme, "Account");
    await verify(acme, old, "allow");
    at(NOW - 40 * DAY);
    await closeDsr(closedLongAgo);
    at(NOW - 31 * DAY);
    await dsr(); // overdue by a day
    await grievance(); // overdue by a day
    at(NOW - 30 * DAY);
    await dsr(); // due exactly now: overdue
    at(NOW - 29 * DAY - 12 * HOUR);
    await dsr(); // due in 12 hours
    at(NOW - 29 * DAY);
    await dsr(); // due in exactly 24 hours: still due soon
    at(NOW - 27 * DAY);
    await dsr(); // due in 3 days: 90 % of its period gone, due soon by the queue filter's rule
    at(NOW - 10 * DAY);
    const closedLately = await dsr();
    const resolvedLately = await grievance();
    at(NOW - 5 * DAY);
    await closeDsr(closedLately);
    await resolveGrievance(resolvedLately);
    at(Date.UTC(2026, 10, 20, 10, 0));
    const a1 = await consent(acme, "Account");
    const a2 = await consent(acme, "Account");
    await consent(acme, "Marketing");
    const elsewhere = await consent(other, "Account");
    await verify(acme, a1, "allow");
    await verify(acme, a2, "allow");
    await verify(other, elsewhere, "allow");
    await dsr(other); // another organisation's queue
    at(Date.UTC(2026, 10, 21, 10, 0));
    await withdraw(a1);
    await verify(acme, a1, "deny");
    await verify(acme, a1, "deny");
    // 20:00 UTC on the 21st is 01:30 on the 22nd in India.
    at(Date.UTC(2026, 10, 21, 20, 0));
    await consent(acme, "Account");
    at(NOW - DAY);
    await dsr(); // open, due in 29 days
    await grievance(); // open
    at(NOW);
    viewer = (await signIn(t, acme, "viewer")).headers;
    otherViewer = (await signIn(t, other, "viewer")).headers;
  });
  after(() => t.close());

  test("the last 30 UTC days: consents per day and purpose, queues against their deadlines, gate decisions", async () => {
    assert.deepEqual(await read(""), {
      days: 30,
      utcOffsetMinutes: 0,
      from: Date.UTC(2026, 9, 25),
      to: NOW,
      consentsPerDay: [
        { day: "2026-11-20", purpose: "Account", given: 2, withdrawn: 0 },
        { day: "2026-11-20", purpose: "Marketing", given: 1, withdrawn: 0 },
        { day: "2026-11-21", purpose: "Account", given: 1, withdrawn: 1 },
      ],
      rights: {
        dsr: { open: 1, dueSoon: 3, overdue: 2, closedInPeriod: 1 },
        grievances: { open: 1, dueSoon: 0, overdue: 1, closedInPeriod: 1 },
      },
      gate: { allow: 2, deny: 2 },
    });
    // A tile's count is what the queue's own filter lists (the dashboard links one to the other).
    for (const [flag, expected] of [
      ["dueSoon", 3],
      ["overdue", 2],
    ] as const) {
      const res = await t.request({
        method: "GET",
        url: `/api/v1/staff/dsr?organizationId=${orgId()}&${flag}=true`,
        headers: viewer,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as { requests: unknown[] }).requests.length, expected, flag);
    }
  });

  test("utcOffsetMinutes moves the days' boundaries: an evening consent in UTC is the next day in India", async () => {
    const india = await read(`?utcOffsetMinutes=${IST}`);
    assert.equal(india.from, Date.UTC(2026, 9, 25) - IST * 60_000);
    assert.deepEqual(india.consentsPerDay, [
      { day: "2026-11-20", purpose: "Account", given: 2, withdrawn: 0 },
      { day: "2026-11-20", purpose: "Marketing", given: 1, withdrawn: 0 },
      { day: "2026-11-21", purpose: "Account", given: 0, withdrawn: 1 },
      { day: "2026-11-22", purpose: "Account", given: 1, withdrawn: 0 },
    ]);
    // West of UTC: 10:00 UTC on the 20th is still the 20th at -600, 20:00 UTC on the 21st too.
    const hawaii = await read("?utcOffsetMinutes=-600");
    assert.deepEqual(
      hawaii.consentsPerDay.map((d) => [d.day, d.purpose, d.given, d.withdrawn]),
      [
        ["2026-11-20", "Account", 2, 0],
        ["2026-11-20", "Marketing", 1, 0],
        ["2026-11-21", "Account", 1, 1],
      ],
    );
  });

  test("days bounds the window: older consents, decisions and closings count only when inside it", async () => {
    const sixty = await read("?days=60");
    assert.equal(sixty.from, Date.UTC(2026, 8, 25));
    assert.deepEqual(sixty.consentsPerDay[0], {
      day: "2026-10-09",
      purpose: "Account",
      given: 1,
      withdrawn: 0,
    });
    assert.equal(sixty.consentsPerDay.length, 4);
    assert.deepEqual(sixty.gate, { allow: 3, deny: 2 });
    assert.equal(sixty.rights.dsr.closedInPeriod, 2);
    // Three days (the 21st, 22nd and today): the 20th's consents and decisions are out; the queues'
    // open items are counted whatever the window.
    const three = await read("?days=3");
    assert.equal(three.from, Date.UTC(2026, 10, 21));
    assert.deepEqual(three.consentsPerDay, [
      { day: "2026-11-21", purpose: "Account", given: 1, withdrawn: 1 },
    ]);
    assert.deepEqual(three.gate, { allow: 0, deny: 2 });
    assert.deepEqual(three.rights.dsr, { open: 1, dueSoon: 3, overdue: 2, closedInPeriod: 0 });
    const today = await read("?days=1");
    assert.deepEqual(
      [today.from, today.consentsPerDay, today.gate],
      [Date.UTC(2026, 10, 23), [], { allow: 0, deny: 0 }],
    );
  });

  test("another organisation's staff see only their own organisation", async () => {
    const theirs = await read("", otherViewer);
    assert.deepEqual(theirs.consentsPerDay, [
      { day: "2026-11-20", purpose: "Account", given: 1, withdrawn: 0 },
    ]);
    assert.deepEqual(theirs.rights.dsr, { open: 1, dueSoon: 0, overdue: 0, closedInPeriod: 0 });
    assert.deepEqual(theirs.rights.grievances, { open: 0, dueSoon: 0, overdue: 0, closedInPeriod: 0 });
    assert.deepEqual(theirs.gate, { allow: 1, deny: 0 });
  });

  test("every staff role may read it; a service key or no credential may not", async () => {
    for (const role of ["admin", "dpo"] as const) {
      const res = await overview("", (await signIn(t, acme, role)).headers);
      assert.equal(res.statusCode, 200, res.body);
    }
    assertApiError(await overview("", bearer(acme.apiKey)), 401, "UNAUTHORIZED");
    assertApiError(await overview("", {}), 401, "UNAUTHORIZED");
  });

  test("days and utcOffsetMinutes out of bounds are 400s naming the field", async () => {
    for (const [query, field] of [
      ["?days=0", "days"],
      ["?days=400", "days"],
      ["?days=367", "days"],
      ["?days=abc", "days"],
      ["?days=1.5", "days"],
      ["?utcOffsetMinutes=841", "utcOffsetMinutes"],
      ["?utcOffsetMinutes=-721", "utcOffsetMinutes"],
    ] as const) {
      assertApiError(await overview(query), 400, "VALIDATION_ERROR", { field });
    }
    // The extremes are accepted.
    assert.equal((await read("?days=366&utcOffsetMinutes=840")).days, 366);
    assert.equal((await read("?utcOffsetMinutes=-720")).utcOffsetMinutes, -720);
  });
});
