// The organisation's settings: read in force (defaults filled in), changed by a validated partial
// merge that keeps siblings and unrelated keys, audited, isolated per organisation, and actually
// used by the Consent Gate's bypass alerts and the children's tracking rule. Also `guard org settings`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { loadOpenApiDocument } from "@guard/contract";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { CONSENT_SETTING_RANGES } from "../../src/consent/settings.js";
import { GATE_SETTING_RANGES } from "../../src/gate/settings.js";
import type { StaffRole } from "../../src/lib/credentials.js";
import { assertApiError } from "../support/api-error.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import {
  anonymousConsent,
  parentalToken,
  principal,
  publishTestNotice,
  recordConsent,
} from "../support/consent-fixtures.js";
import { readStoredSettings } from "../../src/accounts/store/organizations.js";
import {
  bearer,
  engine,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";

const URL_PATH = "/api/v1/staff/organization/settings";

const DEFAULTS = {
  blockTrackingForChildren: true,
  anonymousConsentRateLimit: { perAddress: 120, perOrganization: 6000, windowMs: 60_000 },
  consentGate: { windowMs: 3_600_000, denyThreshold: 3 },
  updatedAt: null,
};

type Settings = {
  blockTrackingForChildren: boolean;
  anonymousConsentRateLimit: { perAddress: number; perOrganization: number; windowMs: number };
  consentGate: { windowMs: number; denyThreshold: number };
  updatedAt: number | null;
};

describe("organisation settings", () => {
  let t: TestApp;
  const sessions = new Map<string, Record<string, string>>();

  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  // One session per organisation and role: sign-in is rate limited per account.
  async function as(seeded: SeededOrg, role: StaffRole): Promise<Record<string, string>> {
    const key = `${seeded.org.slug}:${role}`;
    let headers = sessions.get(key);
    if (!headers) {
      headers = (await signIn(t, seeded, role)).headers;
      sessions.set(key, headers);
    }
    return headers;
  }
  const get = async (seeded: SeededOrg, role: StaffRole = "viewer") =>
    t.request({ method: "GET", url: URL_PATH, headers: await as(seeded, role) });
  const patch = async (seeded: SeededOrg, payload: unknown, role: StaffRole = "dpo") =>
    t.request({
      method: "PATCH",
      url: URL_PATH,
      headers: await as(seeded, role),
      payload: payload as Record<string, unknown>,
    });
  const settingsOf = async (seeded: SeededOrg): Promise<Settings> => {
    const res = await get(seeded);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Settings;
  };
  const auditEntries = async (seeded: SeededOrg) => {
    await linkQueuedOf(t.db, seeded.org.organizationId, t.clock.now());
    return t.db.query<{ entry_type: string; subject_id: string; payload: string; created_at: number }>(
      `SELECT entry_type, subject_id, payload, created_at FROM audit_entries
        WHERE organization_id = $1 AND entry_type = 'organization.settings_changed' ORDER BY seq`,
      [seeded.org.organizationId],
    );
  };

  test("a fresh organisation reads the defaults, for every staff role and its service key", async () => {
    const org = await seedOrganization(t);
    for (const role of ["admin", "dpo", "viewer"] as const)
      assert.deepEqual(await settingsOf(org), DEFAULTS, role);
    const byKey = await t.request({ method: "GET", url: URL_PATH, headers: bearer(org.apiKey) });
    assert.equal(byKey.statusCode, 200, byKey.body);
    assert.deepEqual(byKey.json(), DEFAULTS);
    assertApiError(await t.request({ method: "GET", url: URL_PATH }), 401, "UNAUTHORIZED");
  });

  test("PATCH merges: nested siblings and unrelated stored keys are kept; the answer is what GET reads", async () => {
    const org = await seedOrganization(t);
    // Keys written by something else (another domain, an older release) must survive a change.
    await t.db.query("UPDATE organizations SET settings = $2::jsonb WHERE organization_id = $1", [
      org.org.organizationId,
      JSON.stringify({ somethingElse: { kept: true }, consentGate: { denyThreshold: 4 } }),
    ]);
    assert.equal((await settingsOf(org)).consentGate.denyThreshold, 4);

    t.clock.advance(1000);
    const first = await patch(org, { consentGate: { windowMs: 600_000 } });
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), {
      ...DEFAULTS,
      consentGate: { windowMs: 600_000, denyThreshold: 4 },
      updatedAt: t.clock.now(),
    });

    t.clock.advance(1000);
    const second = await patch(org, {
      anonymousConsentRateLimit: { perAddress: 10 },
      blockTrackingForChildren: false,
    });
    assert.equal(second.statusCode, 200, second.body);
    const expected = {
      blockTrackingForChildren: false,
      anonymousConsentRateLimit: { perAddress: 10, perOrganization: 6000, windowMs: 60_000 },
      consentGate: { windowMs: 600_000, denyThreshold: 4 },
      updatedAt: t.clock.now(),
    };
    assert.deepEqual(second.json(), expected);
    assert.deepEqual(await settingsOf(org), expected);

    const [row] = await t.db.query<{ settings: Record<string, unknown> }>(
      "SELECT settings FROM organizations WHERE organization_id = $1",
      [org.org.organizationId],
    );
    assert.deepEqual(row!.settings, {
      somethingElse: { kept: true },
      blockTrackingForChildren: false,
      anonymousConsentRateLimit: { perAddress: 10 },
      consentGate: { windowMs: 600_000, denyThreshold: 4 },
      updatedAt: t.clock.now(),
    });
  });

  test("the same PATCH again changes nothing: same answer, same updatedAt, no new audit entry", async () => {
    const org = await seedOrganization(t);
    const body = { consentGate: { denyThreshold: 7 }, blockTrackingForChildren: true };
    const first = await patch(org, body);
    assert.equal(first.statusCode, 200, first.body);
    const entries = (await auditEntries(org)).length;
    assert.equal(entries, 1);
    t.clock.advance(5000);
    const again = await patch(org, body, "admin");
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), first.json());
    assert.equal((await auditEntries(org)).length, entries);
  });

  test("bad input is 400 VALIDATION_ERROR naming the field, and changes nothing", async () => {
    const org = await seedOrganization(t);
    const dayMs = 86_400_000;
    const cases: [unknown, string][] = [
      [{}, "body"],
      [[{ consentGate: { denyThreshold: 2 } }], "body"],
      [null, "body"],
      [{ consentGate: {} }, "consentGate"],
      [{ consentGate: 5 }, "consentGate"],
      [{ consentGate: { windowMs: 999 } }, "consentGate.windowMs"],
      [{ consentGate: { windowMs: 30 * dayMs + 1 } }, "consentGate.windowMs"],
      [{ consentGate: { denyThreshold: 0 } }, "consentGate.denyThreshold"],
      [{ consentGate: { denyThreshold: 1_000_001 } }, "consentGate.denyThreshold"],
      [{ consentGate: { denyThreshold: 1.5 } }, "consentGate.denyThreshold"],
      [{ consentGate: { denyThreshold: "2" } }, "consentGate.denyThreshold"],
      [{ anonymousConsentRateLimit: { perAddress: 0 } }, "anonymousConsentRateLimit.perAddress"],
      [
        { anonymousConsentRateLimit: { perOrganization: 100_000_001 } },
        "anonymousConsentRateLimit.perOrganization",
      ],
      [{ anonymousConsentRateLimit: { windowMs: dayMs + 1 } }, "anonymousConsentRateLimit.windowMs"],
      [{ blockTrackingForChildren: "false" }, "blockTrackingForChildren"],
      [{ blockTrackingForChildren: null }, "blockTrackingForChildren"],
      // Typos and unknown keys, at either level; a valid sibling is not applied either.
      [{ consentGate: { denyTreshold: 2 } }, "consentGate.denyTreshold"],
      [{ consentGate: { windowMs: 600_000, extra: 1 } }, "consentGate.extra"],
      [{ blockTrackingForKids: false }, "blockTrackingForKids"],
      [{ blockTrackingForChildren: false, updatedAt: 5 }, "updatedAt"],
      // Refused by the body parser before the settings see it (http/json-body.ts).
      [{ ["__proto__"]: { denyThreshold: 1 } }, "body"],
    ];
    for (const [payload, field] of cases) {
      const res = await t.request({
        method: "PATCH",
        url: URL_PATH,
        headers: { ...(await as(org, "admin")), "content-type": "application/json" },
        // Serialised here so a computed `__proto__` key reaches the server as an own key.
        payload: JSON.stringify(payload),
      });
      assertApiError(res, 400, "VALIDATION_ERROR", { field });
    }
    assert.deepEqual(await settingsOf(org), DEFAULTS);
    assert.equal((await auditEntries(org)).length, 0);
  });

  test("the extreme values of each range are accepted", async () => {
    const org = await seedOrganization(t);
    const low = {
      anonymousConsentRateLimit: { perAddress: 1, perOrganization: 1, windowMs: 1000 },
      consentGate: { windowMs: 1000, denyThreshold: 1 },
    };
    const high = {
      anonymousConsentRateLimit: {
        perAddress: 1_000_000,
        perOrganization: 100_000_000,
        windowMs: 86_400_000,
      },
      consentGate: { windowMs: 30 * 86_400_000, denyThreshold: 1_000_000 },
    };
    for (const body of [low, high]) {
      const res = await patch(org, body);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { ...body, blockTrackingForChildren: true, updatedAt: t.clock.now() });
    }
  });

  test("viewer is 403; a cookie write without X-CSRF-Token is 403; the service key may write", async () => {
    const org = await seedOrganization(t);
    assertApiError(await patch(org, { consentGate: { denyThreshold: 2 } }, "viewer"), 403, "FORBIDDEN");
    const { "x-csrf-token": _csrf, ...cookieOnly } = await as(org, "admin");
    assertApiError(
      await t.request({
        method: "PATCH",
        url: URL_PATH,
        headers: cookieOnly,
        payload: { blockTrackingForChildren: false },
      }),
      403,
      "FORBIDDEN",
    );
    assertApiError(
      await t.request({ method: "PATCH", url: URL_PATH, payload: { blockTrackingForChildren: false } }),
      401,
      "UNAUTHORIZED",
    );
    assert.deepEqual(await settingsOf(org), DEFAULTS);
    const byKey = await t.request({
      method: "PATCH",
      url: URL_PATH,
      headers: bearer(org.apiKey),
      payload: { consentGate: { denyThreshold: 2 } },
    });
    assert.equal(byKey.statusCode, 200, byKey.body);
    const [entry] = await auditEntries(org);
    assert.deepEqual(
      { kind: JSON.parse(entry!.payload).actorKind, id: JSON.parse(entry!.payload).actorId },
      { kind: "service", id: org.apiKeyId },
    );
  });

  test("each organisation has its own settings", async () => {
    const a = await seedOrganization(t);
    const b = await seedOrganization(t);
    const changed = await patch(
      a,
      { consentGate: { denyThreshold: 9 }, blockTrackingForChildren: false },
      "admin",
    );
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(await settingsOf(b), DEFAULTS);
    const bByKey = await t.request({ method: "GET", url: URL_PATH, headers: bearer(b.apiKey) });
    assert.deepEqual(bByKey.json(), DEFAULTS);
    // B's change is B's alone.
    assert.equal((await patch(b, { consentGate: { denyThreshold: 2 } })).statusCode, 200);
    assert.equal((await settingsOf(a)).consentGate.denyThreshold, 9);
    assert.equal((await auditEntries(b)).length, 1);
    assert.equal((await auditEntries(a)).length, 1);
  });

  test("concurrent changes of different fields both survive", async () => {
    const org = await seedOrganization(t);
    const bodies = [
      { consentGate: { windowMs: 120_000 } },
      { consentGate: { denyThreshold: 11 } },
      { anonymousConsentRateLimit: { perAddress: 5 } },
      { anonymousConsentRateLimit: { perOrganization: 50 } },
      { blockTrackingForChildren: false },
    ];
    const headers = await as(org, "admin");
    const results = await Promise.all(
      bodies.map((payload) => t.request({ method: "PATCH", url: URL_PATH, headers, payload })),
    );
    for (const res of results) assert.equal(res.statusCode, 200, res.body);
    const now = await settingsOf(org);
    assert.deepEqual(now, {
      blockTrackingForChildren: false,
      anonymousConsentRateLimit: { perAddress: 5, perOrganization: 50, windowMs: 60_000 },
      consentGate: { windowMs: 120_000, denyThreshold: 11 },
      updatedAt: now.updatedAt,
    });
    assert.equal((await auditEntries(org)).length, bodies.length);
  });

  test(
    "a change in progress does not hold up writes that reference the organisation",
    {
      skip: engine === "pglite" && "one connection: every transaction waits for the one before",
      // Were the capture to wait for the change, it would wait forever: end the test instead.
      timeout: 30_000,
    },
    async () => {
      const org = await seedOrganization(t);
      const { noticeId } = await publishTestNotice(t, org);
      let release!: () => void;
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const change = t.db.transaction(async (tx) => {
        await readStoredSettings(tx, org.org.organizationId, { forUpdate: true });
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await isLocked;
      try {
        // Its foreign key locks the organisation's row FOR KEY SHARE, which FOR NO KEY UPDATE allows.
        const given = await anonymousConsent(t, {
          organizationId: org.org.organizationId,
          noticeId,
          purpose: "Account",
          dataTypes: ["email"],
          anonymousId: "guest-during-change",
        });
        assert.equal(given.statusCode, 201, given.body);
      } finally {
        release();
        await change;
      }
    },
  );

  test("every change is on the audit chain with before, after and who; the chain stays intact", async () => {
    const org = await seedOrganization(t);
    t.clock.advance(1000);
    assert.equal(
      (await patch(org, { consentGate: { windowMs: 600_000, denyThreshold: 1 } }, "admin")).statusCode,
      200,
    );
    t.clock.advance(1000);
    assert.equal((await patch(org, { blockTrackingForChildren: false })).statusCode, 200);
    const entries = await auditEntries(org);
    assert.equal(entries.length, 2);
    const [staffRow] = await t.db.query<{ staff_id: string }>(
      "SELECT staff_id FROM staff_users WHERE organization_id = $1 AND role = 'admin'",
      [org.org.organizationId],
    );
    assert.equal(entries[0]!.subject_id, org.org.organizationId);
    assert.equal(entries[0]!.created_at, t.clock.now() - 1000);
    const { updatedAt: _u, ...defaults } = DEFAULTS;
    assert.deepEqual(JSON.parse(entries[0]!.payload), {
      set: { "consentGate.windowMs": 600_000, "consentGate.denyThreshold": 1 },
      from: defaults,
      to: { ...defaults, consentGate: { windowMs: 600_000, denyThreshold: 1 } },
      actorKind: "staff",
      actorId: staffRow!.staff_id,
    });
    assert.deepEqual(JSON.parse(entries[1]!.payload).set, { blockTrackingForChildren: false });
    assert.equal(JSON.parse(entries[1]!.payload).to.blockTrackingForChildren, false);
    const report = await verifyAuditChain(t.db, org.org.organizationId, t.config.auditKeys);
    assert.equal(report.intact, true, JSON.stringify(report.firstBrokenLink));
    assert.equal(report.entries, 2);
  });

  test("the Consent Gate's bypass alerts follow the changed window and threshold", async () => {
    const org = await seedOrganization(t);
    const { noticeId } = await publishTestNotice(t, org);
    const given = await anonymousConsent(t, {
      organizationId: org.org.organizationId,
      noticeId,
      purpose: "Account",
      dataTypes: ["email"],
      anonymousId: "guest-gate-1",
    });
    assert.equal(given.statusCode, 201, given.body);
    const consentId = given.json().consentId as string;
    const withdrawn = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${consentId}`,
      headers: bearer(org.apiKey),
    });
    assert.equal(withdrawn.statusCode, 200, withdrawn.body);
    t.clock.advance(1000);
    const verdict = await t.request({
      method: "POST",
      url: "/api/v1/consent/verify",
      headers: bearer(org.apiKey),
      payload: { consentId },
    });
    assert.equal(verdict.json().decision, "deny");
    const deniedAt = t.clock.now();
    const alerts = () =>
      t.request({ method: "GET", url: "/api/v1/consent/gate/alerts", headers: bearer(org.apiKey) });

    assert.deepEqual((await alerts()).json(), {
      alerts: [],
      windowMs: 3_600_000,
      denyThreshold: 3,
      nextCursor: null,
    });
    const changed = await patch(org, { consentGate: { denyThreshold: 1, windowMs: 7_200_000 } });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual((await alerts()).json(), {
      alerts: [{ consentId, denyCount: 1, firstDeniedAt: deniedAt, lastDeniedAt: deniedAt }],
      windowMs: 7_200_000,
      denyThreshold: 1,
      nextCursor: null,
    });
    // A shorter window lets the deny age out.
    t.clock.advance(2000);
    assert.equal((await patch(org, { consentGate: { windowMs: 1000 } })).statusCode, 200);
    assert.deepEqual((await alerts()).json(), {
      alerts: [],
      windowMs: 1000,
      denyThreshold: 1,
      nextCursor: null,
    });
  });

  test("blockTrackingForChildren decides whether a verified child may consent to a tracking purpose", async () => {
    const org = await seedOrganization(t);
    const notice = await publishTestNotice(t, org, {
      itemized: [
        { purpose: "Account", personalDataDescription: "Name and email." },
        { purpose: "Targeted advertising", personalDataDescription: "Browsing history." },
        { purpose: "Product analytics", personalDataDescription: "App usage." },
      ],
    });
    const child = await principal(t, org, "child-settings", "child-settings@example.com");
    const verified = await t.request({
      method: "POST",
      url: "/api/v1/age/verify-parent",
      headers: bearer(child.accessToken),
      payload: { tokenFromProvider: parentalToken(t, org, "child-settings") },
    });
    assert.equal(verified.statusCode, 200, verified.body);
    const consent = (purpose: string) =>
      recordConsent(t, org, {
        email: "child-settings@example.com",
        noticeId: notice.noticeId,
        purpose,
        dataTypes: ["email"],
      });

    assertApiError(await consent("Targeted advertising"), 403, "MINOR_TRACKING_BLOCKED");
    assert.equal((await patch(org, { blockTrackingForChildren: false })).statusCode, 200);
    const allowed = await consent("Targeted advertising");
    assert.equal(allowed.statusCode, 201, allowed.body);
    assert.equal((await patch(org, { blockTrackingForChildren: true })).statusCode, 200);
    assertApiError(await consent("Product analytics"), 403, "MINOR_TRACKING_BLOCKED");
  });

  test("the contract's ranges are the parsers' ranges", () => {
    const doc = loadOpenApiDocument() as {
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Schema }> } }>>;
      components: { schemas: Record<string, Schema> };
    };
    type Schema = { properties: Record<string, Schema>; minimum?: number; maximum?: number };
    const request = doc.paths[URL_PATH]!.patch!.requestBody.content["application/json"]!.schema;
    const response = doc.components.schemas.OrganizationSettings!;
    const expected = {
      anonymousConsentRateLimit: CONSENT_SETTING_RANGES.anonymousConsentRateLimit,
      consentGate: GATE_SETTING_RANGES,
    };
    for (const schema of [request, response]) {
      for (const [group, ranges] of Object.entries(expected)) {
        const members = schema.properties[group]!.properties;
        assert.deepEqual(Object.keys(members).sort(), Object.keys(ranges).sort(), group);
        for (const [name, range] of Object.entries(ranges)) {
          assert.deepEqual(
            { min: members[name]!.minimum, max: members[name]!.maximum },
            { min: range.min, max: range.max },
            `${group}.${name}`,
          );
        }
      }
    }
  });
});

describe("guard org settings", () => {
  let cli: CliEnvironment;
  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    const created = await cli.run(["--json", "org", "create", "--slug", "acme", "--name", "Acme"]);
    assert.equal(created.code, 0, created.stderr);
  });
  after(() => cli.dispose());

  test("prints the settings in force, and --set changes them through the same rules", async () => {
    const shown = await cli.run(["--json", "org", "settings", "--org", "acme"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(shown.json(), DEFAULTS);

    const set = await cli.run([
      "--json",
      "org",
      "settings",
      "--org",
      "acme",
      "--set",
      "consentGate.windowMs=600000",
      "--set",
      "blockTrackingForChildren=false",
      "--set",
      "consentGate.denyThreshold=2",
    ]);
    assert.equal(set.code, 0, set.stderr);
    const changed = set.json<Settings>();
    assert.equal(typeof changed.updatedAt, "number");
    assert.deepEqual(changed, {
      ...DEFAULTS,
      blockTrackingForChildren: false,
      consentGate: { windowMs: 600_000, denyThreshold: 2 },
      updatedAt: changed.updatedAt,
    });
    assert.deepEqual((await cli.run(["--json", "org", "settings", "--org", "acme"])).json(), changed);

    const audit = await cli.run(["--json", "audit", "verify", "--org", "acme"]);
    assert.equal(audit.code, 0, audit.stdout + audit.stderr);
    assert.equal(audit.json<{ entries: number }>().entries, 1);
  });

  test("a bad value, an unknown path or a malformed --set exits 1 naming the field, changing nothing", async () => {
    const before = (await cli.run(["--json", "org", "settings", "--org", "acme"])).json();
    const cases: [string, RegExp][] = [
      [
        "consentGate.denyThreshold=0",
        /VALIDATION_ERROR: consentGate\.denyThreshold must be a whole number from 1 to 1000000/,
      ],
      ["consentGate.windowMs=ten", /consentGate\.windowMs must be a whole number/],
      ["blockTrackingForChildren=maybe", /blockTrackingForChildren must be true or false/],
      ["consentGate.denyTreshold=2", /consentGate\.denyTreshold is not a setting/],
      ["consentGate=5", /consentGate is not a setting/],
      ["denyThreshold", /--set denyThreshold: give path=value/],
    ];
    for (const [assignment, message] of cases) {
      const res = await cli.run([
        "org",
        "settings",
        "--org",
        "acme",
        "--set",
        "anonymousConsentRateLimit.perAddress=7",
        "--set",
        assignment,
      ]);
      assert.equal(res.code, 1, `${assignment}: ${res.stdout}${res.stderr}`);
      assert.match(res.stderr, message, assignment);
    }
    assert.deepEqual((await cli.run(["--json", "org", "settings", "--org", "acme"])).json(), before);
    const unknownOrg = await cli.run(["org", "settings", "--org", "nope"]);
    assert.equal(unknownOrg.code, 1);
    assert.match(unknownOrg.stderr, /nope/);
  });
});
