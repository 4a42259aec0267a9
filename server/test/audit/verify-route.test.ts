// POST /api/v1/staff/audit/verify: `guard audit verify --org` for the session's organisation, for
// any staff role. A tampered row makes the report not intact (still a 200) and names the row;
// another organisation's chain is neither walked nor affected.
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

type Report = {
  intact: boolean;
  entries: number;
  headSeq: number;
  headHash: string;
  consentEventsChecked: number;
  consentsChecked: number;
  rowsChecked: Record<string, number>;
  firstBrokenLink: { table: string; recordId: string; seq: number | null; reason: string } | null;
  problemCount: number;
  problems: { table: string; recordId: string; seq: number | null; reason: string }[];
};

describe("staff audit verify", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  const consents = new Map<SeededOrg, string[]>();

  async function giveConsents(org: SeededOrg, count: number): Promise<void> {
    const { noticeId } = await publishTestNotice(t, org);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const res = await anonymousConsent(t, {
        organizationId: org.org.organizationId,
        noticeId,
        purpose: "Account",
        dataTypes: ["email"],
        anonymousId: `guest-verify-${org.org.slug}-${i}`,
      });
      assert.equal(res.statusCode, 201, res.body);
      ids.push(res.json().consentId as string);
    }
    consents.set(org, ids);
  }
  const verify = (headers: Record<string, string>) =>
    t.request({ method: "POST", url: "/api/v1/staff/audit/verify", headers });
  const report = async (headers: Record<string, string>): Promise<Report> => {
    const res = await verify(headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Report;
  };

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    await giveConsents(acme, 3);
    await giveConsents(other, 2);
  });
  after(() => t.close());

  test("an untouched chain is intact, for a viewer too; the report has no organizationId", async () => {
    const viewer = (await signIn(t, acme, "viewer")).headers;
    const body = await report(viewer);
    assert.equal(body.intact, true);
    assert.equal(body.entries, 3);
    assert.equal(body.headSeq, 3);
    assert.match(body.headHash, /^[0-9a-f]{64}$/);
    assert.equal(body.consentEventsChecked, 3);
    assert.equal(body.consentsChecked, 3);
    assert.deepEqual([body.firstBrokenLink, body.problemCount, body.problems], [null, 0, []]);
    assert.equal("organizationId" in body, false);
    const [head] = await t.db.query<{ entry_hash: string }>(
      "SELECT entry_hash FROM audit_entries WHERE organization_id = $1 ORDER BY seq DESC LIMIT 1",
      [acme.org.organizationId],
    );
    assert.equal(body.headHash, head!.entry_hash);
  });

  test("a consent changed in SQL breaks the report, naming the table and row; the other organisation stays intact", async () => {
    const tampered = consents.get(acme)![1]!;
    await t.db.query(
      "UPDATE consents SET purpose = 'Marketing' WHERE organization_id = $1 AND consent_id = $2",
      [acme.org.organizationId, tampered],
    );
    const dpo = (await signIn(t, acme, "dpo")).headers;
    const body = await report(dpo);
    assert.equal(body.intact, false);
    assert.ok(body.problemCount >= 1);
    assert.equal(body.problems.length, body.problemCount);
    assert.deepEqual(body.firstBrokenLink, body.problems[0]);
    const problem = body.problems.find((p) => p.table === "consents" && p.recordId === tampered);
    assert.ok(problem, JSON.stringify(body.problems));
    assert.equal(problem.reason, "the consent record differs from the state its recorded history gives");
    assert.equal(typeof problem.seq, "number");

    const theirs = await report((await signIn(t, other, "viewer")).headers);
    assert.equal(theirs.intact, true);
    assert.equal(theirs.entries, 2);
  });

  test("X-CSRF-Token is required; a service key or no credential is 401", async () => {
    const session = await signIn(t, acme, "admin");
    assertApiError(await verify({ cookie: session.headers.cookie! }), 403, "FORBIDDEN");
    assertApiError(await verify({ ...session.headers, "x-csrf-token": "wrong" }), 403, "FORBIDDEN");
    assertApiError(await verify(bearer(acme.apiKey)), 401, "UNAUTHORIZED");
    assertApiError(await verify({}), 401, "UNAUTHORIZED");
    assert.equal((await verify(session.headers)).statusCode, 200);
  });
});
