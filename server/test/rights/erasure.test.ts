// Access summaries and erasure, end to end over the API: a principal with consents, gate checks,
// a nomination and grievances asks for a summary (a real account of what Guard holds and records),
// then for erasure. Completing the erasure withdraws every active consent (consent.withdrawn),
// revokes and erases the nomination, redacts grievance and request texts, pseudonymises the
// externalId and email, keeps the consent evidence, and tells processors through dsr.status_changed.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DEMO_NOTICE } from "../../src/demo/seed.js";
import { parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { erasurePseudonym } from "../../src/rights/erasure.js";
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
  fileGrievance,
  GRIEVANCES,
  NOMINATION,
  outboxEvents,
  STAFF_DSR,
  STAFF_GRIEVANCES,
  type DsrBody,
  type GrievanceBody,
  type TransitionBody,
} from "../support/rights-helpers.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";

type Summary = {
  requestId: string;
  principal: { externalId: string; email: string | null; verifiedChild: boolean; firstSeenAt: number };
  consents: {
    consentId: string;
    status: string;
    purpose: string;
    noticeVersion: number;
    personalDataDescription: string | null;
    auditHash: string;
  }[];
  notices: { noticeId: string; version: number; title: string; itemized: { purpose: string }[] }[];
  processing: {
    purpose: string;
    consentId: string;
    consentGateChecks: number;
    lastCheckedAt: number | null;
  }[];
  eventRecipients: { host: string; events: string[] }[];
  rightsRequests: { requestId: string; type: string }[];
  grievances: { grievanceId: string; subject: string }[];
  nomination: { nomineeName: string } | null;
};

describe("summary and erasure", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let noticeId: string;
  let dpo: Awaited<ReturnType<typeof signIn>>;

  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    noticeId = (
      await publishNotice(t.db, seeded.org.organizationId, parseNoticeDraft(DEMO_NOTICE), t.clock.now())
    ).noticeId;
    dpo = await signIn(t, seeded, "dpo");
  });
  after(() => t.close());

  const orgId = () => seeded.org.organizationId;
  const key = () => bearer(seeded.apiKey);

  /** A principal known by externalId and email, with a consent for each demo purpose. */
  const principalWithConsents = async (externalId: string, email: string) => {
    const broker = await t.request({
      method: "POST",
      url: "/api/v1/auth/broker-token",
      headers: key(),
      payload: { externalId, email },
    });
    assert.equal(broker.statusCode, 201, broker.body);
    const token = (broker.json() as { accessToken: string }).accessToken;
    const consentIds: string[] = [];
    for (const purpose of ["Account", "Marketing"]) {
      const res = await t.request({
        method: "POST",
        url: "/cm/v1/consent",
        headers: key(),
        payload: { email, noticeId, purpose, dataTypes: ["email", "phone"] },
      });
      assert.equal(res.statusCode, 201, res.body);
      consentIds.push((res.json() as { consentId: string }).consentId);
    }
    return { token, consentIds };
  };

  const getRequest = async (requestId: string) => {
    const res = await t.request({ method: "GET", url: `${STAFF_DSR}/${requestId}`, headers: dpo.headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { request: DsrBody; transitions: TransitionBody[] };
  };

  test("summary: generated from what Guard holds, stored as the answer, request completed", async () => {
    const { token, consentIds } = await principalWithConsents("sum-alice", "alice@example.in");
    await t.request({
      method: "POST",
      url: "/api/v1/staff/webhooks",
      headers: dpo.headers,
      payload: {
        url: "https://crm.example.in/hooks/guard",
        events: ["consent.withdrawn", "dsr.status_changed"],
      },
    });
    // The fiduciary's backend checks the marketing consent twice before processing.
    for (let i = 0; i < 2; i++) {
      t.clock.advance(1000);
      const gate = await t.request({
        method: "POST",
        url: "/api/v1/consent/verify",
        headers: key(),
        payload: { consentId: consentIds[1] },
      });
      assert.equal(gate.statusCode, 200, gate.body);
    }
    const withdrawn = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${consentIds[0]}`,
      headers: key(),
    });
    assert.equal(withdrawn.statusCode, 200, withdrawn.body);
    await t.request({
      method: "PUT",
      url: NOMINATION,
      headers: bearer(token),
      payload: { nomineeName: "Meera", nomineeContact: "meera@example.in" },
    });
    await fileGrievance(t, token, { organizationId: orgId(), subject: "Late reply", description: "d" });
    const filed = await fileDsr(t, token, { organizationId: orgId(), type: "summary" });

    const generated = await t.request({
      method: "POST",
      url: `${STAFF_DSR}/${filed.requestId}/summary`,
      headers: dpo.headers,
    });
    assert.equal(generated.statusCode, 200, generated.body);
    assert.deepEqual(generated.json(), { updated: true });

    const { request, transitions } = await getRequest(filed.requestId);
    assert.equal(request.status, "completed");
    assert.deepEqual(
      transitions.map((x) => x.to),
      ["pending", "in_progress", "completed"],
    );
    const summary = request.responsePayload as Summary;
    assert.equal(summary.requestId, filed.requestId);
    assert.deepEqual(summary.principal, {
      externalId: "sum-alice",
      email: "alice@example.in",
      verifiedChild: false,
      firstSeenAt: summary.principal.firstSeenAt,
    });
    assert.ok(summary.principal.firstSeenAt <= request.createdAt);
    assert.deepEqual(
      summary.consents.map((c) => [c.consentId, c.status, c.purpose]).sort(),
      [
        [consentIds[0], "withdrawn", "Account"],
        [consentIds[1], "active", "Marketing"],
      ].sort(),
    );
    assert.ok(summary.consents.every((c) => c.noticeVersion === 1 && /^[0-9a-f]{64}$/.test(c.auditHash)));
    assert.match(summary.consents.find((c) => c.purpose === "Marketing")!.personalDataDescription!, /offers/);
    assert.equal(summary.notices.length, 1);
    assert.equal(summary.notices[0]!.noticeId, noticeId);
    assert.equal(summary.notices[0]!.title, DEMO_NOTICE.content.en.title);
    assert.deepEqual(
      summary.processing.map((p) => [p.purpose, p.consentId, p.consentGateChecks]),
      [["Marketing", consentIds[1], 2]],
    );
    assert.equal(summary.processing[0]!.lastCheckedAt, t.clock.now());
    assert.deepEqual(summary.eventRecipients, [
      { host: "crm.example.in", events: ["consent.withdrawn", "dsr.status_changed"] },
    ]);
    assert.ok(summary.rightsRequests.some((r) => r.requestId === filed.requestId));
    assert.deepEqual(
      summary.grievances.map((g) => g.subject),
      ["Late reply"],
    );
    assert.deepEqual(summary.nomination?.nomineeName, "Meera");

    // The principal reads the summary from its own list.
    const mine = (await t.request({ method: "GET", url: DSR, headers: bearer(token) })).json() as {
      requests: DsrBody[];
    };
    assert.deepEqual(mine.requests.find((r) => r.requestId === filed.requestId)!.responsePayload, summary);

    // Terminal now; and a summary of another type of request is refused.
    assertApiError(
      await t.request({
        method: "POST",
        url: `${STAFF_DSR}/${filed.requestId}/summary`,
        headers: dpo.headers,
      }),
      400,
      "INVALID_STATUS_TRANSITION",
    );
    const erasure = await fileDsr(t, token, { organizationId: orgId(), type: "erasure" });
    assertApiError(
      await t.request({
        method: "POST",
        url: `${STAFF_DSR}/${erasure.requestId}/summary`,
        headers: dpo.headers,
      }),
      400,
      "INVALID_STATUS_TRANSITION",
      { message: /summary/ },
    );
  });

  test("erasure: consents withdrawn, personal data erased or pseudonymised, evidence kept, processors told", async () => {
    const { token, consentIds } = await principalWithConsents("erase-bob", "bob@example.in");
    await t.request({
      method: "PUT",
      url: NOMINATION,
      headers: bearer(token),
      payload: { nomineeName: "Kiran Rao", nomineeContact: "+91 90000 12345" },
    });
    const grievance = await fileGrievance(t, token, {
      organizationId: orgId(),
      subject: "My neighbour Suresh sees my data",
      description: "Bob from flat 4B",
    });
    await t.request({
      method: "POST",
      url: `${STAFF_GRIEVANCES}/${grievance.grievanceId}/respond`,
      headers: dpo.headers,
      payload: { status: "in_progress", response: "Dear Bob, we are checking" },
    });
    const summary = await fileDsr(t, token, {
      organizationId: orgId(),
      type: "summary",
      details: "Everything about bob@example.in",
    });
    await t.request({
      method: "POST",
      url: `${STAFF_DSR}/${summary.requestId}/summary`,
      headers: dpo.headers,
    });
    const erasure = await fileDsr(t, token, {
      organizationId: orgId(),
      type: "erasure",
      details: "Delete bob@example.in",
    });

    const withdrawnBefore = (await outboxEvents(t.db, orgId(), "consent.withdrawn")).length;
    const patch = (status: string) =>
      t.request({
        method: "PATCH",
        url: `${STAFF_DSR}/${erasure.requestId}`,
        headers: dpo.headers,
        payload: { status },
      });
    assert.deepEqual((await patch("in_progress")).json(), { updated: true });
    t.clock.advance(1000);
    const done = await patch("completed");
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json(), { updated: true });

    // 1. Consents withdrawn through the consent domain, which raised consent.withdrawn for each.
    const withdrawn = (await outboxEvents(t.db, orgId(), "consent.withdrawn")).slice(withdrawnBefore);
    assert.deepEqual(withdrawn.map((e) => e.payload.consentId).sort(), [...consentIds].sort());
    assert.ok(
      withdrawn.every((e) => (e.payload.principal as { externalId: string }).externalId === "erase-bob"),
    );
    for (const consentId of consentIds) {
      const record = await t.request({ method: "GET", url: `/cm/v1/consent/${consentId}`, headers: key() });
      assert.equal(record.statusCode, 200, "the consent record is kept as evidence");
      assert.equal((record.json() as { status: string }).status, "withdrawn");
    }
    const events = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM consent_events WHERE organization_id = $1 AND consent_id = ANY($2::text[])",
      [orgId(), consentIds],
    );
    assert.equal(events[0]!.n, 4, "given and withdrawn events kept, with their audit hashes");

    // 2. The identifiers: externalId replaced by the keyed pseudonym, email removed.
    const [principal] = await t.db.query<{ principal_id: string; external_id: string; email: string | null }>(
      `SELECT p.principal_id, p.external_id, p.email FROM principals p JOIN dsr_requests d
         ON d.organization_id = p.organization_id AND d.principal_id = p.principal_id WHERE d.request_id = $1`,
      [erasure.requestId],
    );
    assert.equal(principal!.email, null);
    assert.equal(
      principal!.external_id,
      erasurePseudonym(t.config.secretsKey, {
        organizationId: orgId(),
        principalId: principal!.principal_id,
        externalId: "erase-bob",
      }),
    );
    const lookup = await t.request({
      method: "GET",
      url: "/api/v1/consent-status?externalId=erase-bob",
      headers: key(),
    });
    assertApiError(lookup, 404, "NOT_FOUND");
    const byEmail = await t.request({
      method: "GET",
      url: "/api/v1/consent-status?email=bob@example.in",
      headers: key(),
    });
    assertApiError(byEmail, 404, "NOT_FOUND");

    // 3. Nomination revoked and its contact erased; texts redacted, in the records and their history.
    const nominations = await t.db.query<{ nominee_name: string; nominee_contact: string; status: string }>(
      "SELECT nominee_name, nominee_contact, status FROM nominations WHERE organization_id = $1 AND principal_id = $2",
      [orgId(), principal!.principal_id],
    );
    assert.deepEqual(nominations, [
      { nominee_name: "[redacted]", nominee_contact: "[redacted]", status: "revoked" },
    ]);
    const g = (
      await t.request({
        method: "GET",
        url: `${STAFF_GRIEVANCES}/${grievance.grievanceId}`,
        headers: dpo.headers,
      })
    ).json() as {
      grievance: GrievanceBody;
      transitions: TransitionBody[];
    };
    assert.equal(g.grievance.subject, "[redacted]");
    assert.equal(g.grievance.description, "[redacted]");
    assert.equal(g.grievance.response, "[redacted]");
    assert.equal(g.grievance.status, "in_progress", "status and dates are kept");
    assert.ok(g.transitions.every((x) => x.reason === null || x.reason === "[redacted]"));
    const earlier = await getRequest(summary.requestId);
    assert.equal(earlier.request.requestDetails, "[redacted]");
    assert.deepEqual(earlier.request.responsePayload, {
      redacted: true,
      erasureRequestId: erasure.requestId,
    });

    // 4. The erasure request itself: completed, with a report that names no personal data.
    const { request } = await getRequest(erasure.requestId);
    assert.equal(request.status, "completed");
    assert.equal(request.requestDetails, "[redacted]");
    const report = (request.responsePayload as { erasure: Record<string, unknown> }).erasure;
    assert.deepEqual([...(report.consentsWithdrawn as string[])].sort(), [...consentIds].sort());
    assert.equal(report.consentRecordsKept, 2);
    assert.equal(report.nominationsErased, 1);
    assert.equal(report.grievancesRedacted, 1);
    assert.equal(report.requestsRedacted, 2);
    assert.equal(report.email, "removed");
    assert.ok(Array.isArray(report.kept));
    const rows = await t.db.query(
      `SELECT d.details, d.response_payload, g.subject, g.description, g.response, n.nominee_name, n.nominee_contact
         FROM dsr_requests d, grievances g, nominations n
        WHERE d.organization_id = $1 AND d.principal_id = $2 AND g.principal_id = $2 AND n.principal_id = $2`,
      [orgId(), principal!.principal_id],
    );
    assert.equal(rows.length, 2, "two requests × one grievance × one nomination");
    const everything = JSON.stringify(rows);
    for (const personal of ["bob@example.in", "erase-bob", "Suresh", "Kiran", "90000", "Dear Bob"]) {
      assert.ok(!everything.includes(personal), `${personal} is gone from the rights records`);
    }
    await linkQueuedOf(t.db, orgId(), t.clock.now());
    const audit = JSON.stringify(
      await t.db.query("SELECT payload FROM audit_entries WHERE organization_id = $1", [orgId()]),
    );
    assert.ok(
      !audit.includes("erase-bob") && !audit.includes("bob@example.in"),
      "the audit chain holds no identifiers",
    );

    // 5. Processors are told, by the externalId they know.
    const told = (await outboxEvents(t.db, orgId(), "dsr.status_changed")).find(
      (e) => e.payload.requestId === erasure.requestId && e.payload.status === "completed",
    );
    assert.ok(told);
    assert.equal(told.payload.externalId, "erase-bob");
    assert.equal(told.payload.type, "erasure");
    assert.deepEqual(
      [...(told.payload.erasure as { consentsWithdrawn: string[] }).consentsWithdrawn].sort(),
      [...consentIds].sort(),
    );
    const nominationEvent = (await outboxEvents(t.db, orgId(), "nomination.changed")).find(
      (e) => e.payload.change === "erased",
    );
    assert.ok(nominationEvent);

    // The principal's lists still answer (with redacted text); a retried completion is a no-op.
    const mine = (await t.request({ method: "GET", url: GRIEVANCES, headers: bearer(token) })).json() as {
      grievances: GrievanceBody[];
    };
    assert.equal(mine.grievances[0]!.subject, "[redacted]");
    assert.deepEqual((await patch("completed")).json(), { updated: false });
  });

  test("rejecting an erasure request erases nothing", async () => {
    const { token, consentIds } = await principalWithConsents("erase-carol", "carol@example.in");
    const erasure = await fileDsr(t, token, { organizationId: orgId(), type: "erasure" });
    const res = await t.request({
      method: "POST",
      url: `${STAFF_DSR}/${erasure.requestId}/statutory-denial`,
      headers: dpo.headers,
      payload: { statute: "Companies Act, 2013", citation: "Section 128(5)" },
    });
    assert.deepEqual(res.json(), { updated: true });
    const status = await t.request({
      method: "GET",
      url: "/api/v1/consent-status?externalId=erase-carol",
      headers: key(),
    });
    assert.equal(status.statusCode, 200, status.body);
    const consents = (status.json() as { consents: { consentId: string; status: string }[] }).consents;
    assert.deepEqual(
      consents.map((c) => c.status),
      ["active", "active"],
    );
    assert.deepEqual(consents.map((c) => c.consentId).sort(), [...consentIds].sort());
  });
});
