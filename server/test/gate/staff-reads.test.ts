// The decision log and bypass alerts read with a staff session (contract 2.13.0), as the service
// key reads them: any role, the session's organisation only, the same answer as the key's.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setCapabilities } from "../../src/capabilities/capabilities.js";
import { assertApiError } from "../support/api-error.js";
import { anonymousConsent, principal, publishTestNotice } from "../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";

const DECISIONS = "/api/v1/consent/gate/decisions";
const ALERTS = "/api/v1/consent/gate/alerts";

describe("Consent Gate reads for staff", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let acmeViewer: Record<string, string>;
  let otherViewer: Record<string, string>;
  const denied = new Map<SeededOrg, string>();

  async function consentDeniedThrice(org: SeededOrg): Promise<string> {
    const { noticeId } = await publishTestNotice(t, org);
    const res = await anonymousConsent(t, {
      organizationId: org.org.organizationId,
      noticeId,
      purpose: "Account",
      dataTypes: ["email"],
      anonymousId: `guest-staff-reads-${org.org.slug}`,
    });
    assert.equal(res.statusCode, 201, res.body);
    const consentId = res.json().consentId as string;
    const verify = () =>
      t.request({
        method: "POST",
        url: "/api/v1/consent/verify",
        headers: bearer(org.apiKey),
        payload: { consentId },
      });
    assert.equal((await verify()).json().decision, "allow");
    t.clock.advance(1000);
    const withdrawn = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${consentId}`,
      headers: bearer(org.apiKey),
    });
    assert.equal(withdrawn.statusCode, 200, withdrawn.body);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      assert.equal((await verify()).json().decision, "deny");
    }
    return consentId;
  }
  const get = (url: string, headers: Record<string, string>) => t.request({ method: "GET", url, headers });
  const ok = async (url: string, headers: Record<string, string>) => {
    const res = await get(url, headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    denied.set(acme, await consentDeniedThrice(acme));
    denied.set(other, await consentDeniedThrice(other));
    acmeViewer = (await signIn(t, acme, "viewer")).headers;
    otherViewer = (await signIn(t, other, "viewer")).headers;
  });
  after(() => t.close());

  test("a viewer reads the organisation's decision log, exactly as its service key does", async () => {
    const bySession = await ok(DECISIONS, acmeViewer);
    assert.deepEqual(bySession, await ok(DECISIONS, bearer(acme.apiKey)));
    assert.equal(bySession.decisions.length, 4);
    assert.deepEqual(
      bySession.decisions.map((d: { consentId: string; decision: string }) => [d.consentId, d.decision]),
      [
        [denied.get(acme), "deny"],
        [denied.get(acme), "deny"],
        [denied.get(acme), "deny"],
        [denied.get(acme), "allow"],
      ],
    );
    // Paged by cursor with the session as with the key.
    const first = await ok(`${DECISIONS}?limit=3`, acmeViewer);
    assert.equal(first.decisions.length, 3);
    const rest = await ok(`${DECISIONS}?limit=3&cursor=${encodeURIComponent(first.nextCursor)}`, acmeViewer);
    assert.deepEqual([...first.decisions, ...rest.decisions], bySession.decisions);
  });

  test("another organisation's decisions and alerts are never visible", async () => {
    const mine = await ok(DECISIONS, acmeViewer);
    const theirs = await ok(DECISIONS, otherViewer);
    const mineIds = new Set(mine.decisions.map((d: { decisionId: string }) => d.decisionId));
    assert.equal(theirs.decisions.length, 4);
    for (const d of theirs.decisions as { decisionId: string; consentId: string }[]) {
      assert.equal(d.consentId, denied.get(other));
      assert.equal(mineIds.has(d.decisionId), false);
    }
    const alerts = await ok(ALERTS, otherViewer);
    assert.deepEqual(
      alerts.alerts.map((a: { consentId: string }) => a.consentId),
      [denied.get(other)],
    );
  });

  test("every role reads the bypass alerts, as the service key does", async () => {
    const byKey = await ok(ALERTS, bearer(acme.apiKey));
    assert.equal(byKey.alerts.length, 1);
    assert.equal(byKey.alerts[0].consentId, denied.get(acme));
    assert.equal(byKey.alerts[0].denyCount, 3);
    for (const role of ["viewer", "dpo", "admin"] as const) {
      const headers = role === "viewer" ? acmeViewer : (await signIn(t, acme, role)).headers;
      assert.deepEqual(await ok(ALERTS, headers), byKey, role);
    }
  });

  test("no credential or a principal token is 401; the capability switches apply to staff too", async () => {
    for (const url of [DECISIONS, ALERTS]) {
      assertApiError(await get(url, {}), 401, "UNAUTHORIZED");
      const { accessToken } = await principal(t, acme);
      assertApiError(await get(url, bearer(accessToken)), 401, "UNAUTHORIZED");
    }
    await t.db.transaction((tx) =>
      setCapabilities(tx, other.org.organizationId, { consent_gate_bypass_alerts: false }),
    );
    // Bypass detection off: the alerts answer empty, as they do for the key.
    assert.deepEqual((await ok(ALERTS, otherViewer)).alerts, []);
    // The decision log's capability off: both routes answer as an unknown route would.
    await t.db.transaction((tx) =>
      setCapabilities(tx, other.org.organizationId, { consent_gate_audit: false }),
    );
    for (const url of [DECISIONS, ALERTS]) assertApiError(await get(url, otherViewer), 404, "NOT_FOUND");
    // Acme's switches are its own.
    assert.equal((await get(DECISIONS, acmeViewer)).statusCode, 200);
  });
});
