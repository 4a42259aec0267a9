// Webhook endpoints and deliveries for staff: registration rules (URL, explicit known events, a
// secret shown once and stored encrypted), updates and deletion, delivery listing and paging, roles
// (viewer reads only), tenant isolation on every route; the GUARD_SECRETS_KEY setting; and
// `guard webhooks create`.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { verifyDpdpSignature, signDpdpSignature } from "@guard/contract";
import { ConfigError, loadConfig } from "../../src/config.js";
import { Failure } from "../../src/lib/failure.js";
import { checkEndpointUrl } from "../../src/webhooks/endpoints.js";
import { enqueueEvent } from "../../src/webhooks/outbox.js";
import { SecretBox, SecretBoxError } from "../../src/lib/secret-box.js";
import { assertApiError } from "../support/api-error.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { seedOrganization, signIn, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

const WEBHOOKS = "/api/v1/staff/webhooks";
const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;

type Endpoint = {
  endpointId: string;
  url: string;
  events: string[];
  enabled: boolean;
  createdAt: number;
  createdBy: string | null;
  updatedAt: number;
  deletedAt: number | null;
};
type Delivery = { deliveryId: string; eventId: string; eventType: string; status: string };

describe("webhook endpoints (staff routes)", () => {
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
    t.request({ method: "POST", url: WEBHOOKS, headers, payload });

  async function createOk(
    headers: Record<string, string>,
    payload: Record<string, unknown> = {},
  ): Promise<Endpoint & { secret: string }> {
    const res = await create(headers, {
      url: "https://hooks.example.in/guard",
      events: ["consent.given"],
      ...payload,
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  test("create returns the endpoint and its secret once; the secret is stored encrypted and never listed", async () => {
    const res = await create(dpoA, {
      url: "https://hooks.example.in/guard",
      events: ["consent.given", "consent.withdrawn", "consent.given"],
    });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json() as Endpoint & { secret: string };
    assert.match(created.endpointId, /^whe_[0-9A-Za-z]{20}$/);
    assert.match(created.secret, SECRET_PATTERN);
    assert.equal(Buffer.from(created.secret.slice(6), "base64").length, 32);
    assert.deepEqual(
      created.events,
      ["consent.given", "consent.withdrawn"],
      "duplicates dropped, order kept",
    );
    assert.equal(created.url, "https://hooks.example.in/guard");
    assert.equal(created.enabled, true);
    assert.equal(created.deletedAt, null);
    assert.match(String(created.createdBy), /^stf_/);

    const [row] = await t.db.query<{ secret_ciphertext: string }>(
      "SELECT secret_ciphertext FROM webhook_endpoints WHERE organization_id = $1 AND endpoint_id = $2",
      [a.org.organizationId, created.endpointId],
    );
    assert.ok(row);
    assert.ok(!row.secret_ciphertext.includes(created.secret.slice(6)), "not stored in clear");
    const box = new SecretBox(t.config.secretsKey);
    const binding = `webhook_endpoints/${a.org.organizationId}/${created.endpointId}`;
    assert.equal(box.open(row.secret_ciphertext, binding), created.secret);
    // Bound to its row and to the key: moved or under another key, it does not open.
    assert.throws(() => box.open(row.secret_ciphertext, `${binding}x`), SecretBoxError);
    assert.throws(
      () => new SecretBox("another-secrets-key-another-secrets-key").open(row.secret_ciphertext, binding),
      SecretBoxError,
    );

    t.clock.advance(1);
    const again = await createOk(adminA);
    assert.notEqual(again.secret, created.secret, "each endpoint has its own secret");

    for (const res of [
      await t.request({ method: "GET", url: WEBHOOKS, headers: viewerA }),
      await t.request({ method: "GET", url: `${WEBHOOKS}/${created.endpointId}`, headers: viewerA }),
    ]) {
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(!res.body.includes("whsec_"), "no secret after creation");
    }
    const listed = (await t.request({ method: "GET", url: WEBHOOKS, headers: viewerA })).json() as {
      endpoints: Endpoint[];
    };
    assert.deepEqual(
      listed.endpoints
        .map((e) => e.endpointId)
        .filter((id) => [created.endpointId, again.endpointId].includes(id)),
      [again.endpointId, created.endpointId],
    );
  });

  test("bad registrations are refused with VALIDATION_ERROR naming the field", async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ url: "https://x.example.in", events: [] }, "events", /at least 1 item/],
      [
        { url: "https://x.example.in", events: ["consent.given", "consent.changed"] },
        "events[1]",
        /must be one of/,
      ],
      [{ url: "https://x.example.in" }, "events", /required/],
      [{ events: ["consent.given"] }, "url", /required/],
      [{ url: "", events: ["consent.given"] }, "url", /empty/],
      [{ url: "not a url", events: ["consent.given"] }, "url", /./],
      [{ url: "ftp://x.example.in/hook", events: ["consent.given"] }, "url", /https/],
      [{ url: "http://hooks.example.in/guard", events: ["consent.given"] }, "url", /https/],
      [
        { url: "https://user:pw@hooks.example.in/", events: ["consent.given"] },
        "url",
        /user name or password/,
      ],
      [{ url: "https://hooks.example.in/#x", events: ["consent.given"] }, "url", /fragment/],
      [{ url: "https://x.example.in", events: ["consent.given"], enabled: "yes" }, "enabled", /boolean/],
    ];
    for (const [payload, field, message] of cases) {
      assertApiError(await create(adminA, payload), 400, "VALIDATION_ERROR", { field, message });
    }
    // Plain http to the local machine is for trying a receiver outside production.
    const local = await create(adminA, { url: "http://127.0.0.1:9999/hook", events: ["dsr.created"] });
    assert.equal(local.statusCode, 201, local.body);
    const localhost = await create(adminA, { url: "http://localhost:9999/hook", events: ["dsr.created"] });
    assert.equal(localhost.statusCode, 201, localhost.body);
  });

  test("URL and event rules hold in the domain too (the CLI path), and http is refused in production", () => {
    assert.equal(checkEndpointUrl("https://Hooks.Example.in/a", true), "https://hooks.example.in/a");
    assert.equal(checkEndpointUrl("http://[::1]:8080/a", false), "http://[::1]:8080/a");
    assert.throws(
      () => checkEndpointUrl("http://127.0.0.1:8080/a", true),
      (e: unknown) =>
        e instanceof Failure &&
        e.code === "VALIDATION_ERROR" &&
        e.field === "url" &&
        /production/.test(e.message),
    );
    assert.throws(() => checkEndpointUrl("http://10.0.0.1/a", false), /https/);
    assert.throws(() => checkEndpointUrl(`https://x.example.in/${"a".repeat(2048)}`, false), /2048/);
  });

  test("update changes url, events and enabled; bad updates are 400; a deleted endpoint is 409", async () => {
    const endpoint = await createOk(adminA);
    const url = `${WEBHOOKS}/${endpoint.endpointId}`;
    t.clock.advance(1000);
    const res = await t.request({
      method: "PATCH",
      url,
      headers: dpoA,
      payload: {
        url: "https://new.example.in/hook",
        events: ["dsr.created", "grievance.created"],
        enabled: false,
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const updated = res.json() as Endpoint;
    assert.equal(updated.url, "https://new.example.in/hook");
    assert.deepEqual(updated.events, ["dsr.created", "grievance.created"]);
    assert.equal(updated.enabled, false);
    assert.equal(updated.updatedAt, endpoint.createdAt + 1000);
    assert.deepEqual((await t.request({ method: "GET", url, headers: viewerA })).json(), updated);

    // Repeating a change is harmless.
    const again = await t.request({ method: "PATCH", url, headers: dpoA, payload: { enabled: false } });
    assert.equal(again.statusCode, 200);
    assert.equal((again.json() as Endpoint).enabled, false);

    const patch = (payload: Record<string, unknown>) =>
      t.request({ method: "PATCH", url, headers: adminA, payload });
    assertApiError(await patch({}), 400, "VALIDATION_ERROR");
    assertApiError(await patch({ events: [] }), 400, "VALIDATION_ERROR", { field: "events" });
    assertApiError(await patch({ events: ["nope"] }), 400, "VALIDATION_ERROR", { field: "events[0]" });
    assertApiError(await patch({ url: "http://example.in" }), 400, "VALIDATION_ERROR", { field: "url" });

    const del = await t.request({ method: "DELETE", url, headers: adminA });
    assert.deepEqual(del.json(), { endpointId: endpoint.endpointId, deleted: true });
    assertApiError(await patch({ enabled: true }), 409, "CONFLICT", { message: /deleted/ });
  });

  test("delete disables for good, cancels queued deliveries, and keeps the record readable", async () => {
    const endpoint = await createOk(adminA, { events: ["grievance.created"] });
    await t.db.transaction((tx) =>
      enqueueEvent(
        tx,
        { organizationId: a.org.organizationId, eventType: "grievance.created", payload: { g: 1 } },
        t.clock.now(),
      ),
    );
    const url = `${WEBHOOKS}/${endpoint.endpointId}`;
    const first = await t.request({ method: "DELETE", url, headers: dpoA });
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { endpointId: endpoint.endpointId, deleted: true });
    const second = await t.request({ method: "DELETE", url, headers: dpoA });
    assert.deepEqual(second.json(), { endpointId: endpoint.endpointId, deleted: false });

    const read = (await t.request({ method: "GET", url, headers: viewerA })).json() as Endpoint;
    assert.equal(read.deletedAt, t.clock.now());
    assert.equal(read.enabled, false);
    const listed = (await t.request({ method: "GET", url: WEBHOOKS, headers: viewerA })).json() as {
      endpoints: Endpoint[];
    };
    assert.ok(!listed.endpoints.some((e) => e.endpointId === endpoint.endpointId));
    const withDeleted = (
      await t.request({ method: "GET", url: `${WEBHOOKS}?includeDeleted=true`, headers: viewerA })
    ).json() as { endpoints: Endpoint[] };
    assert.ok(withDeleted.endpoints.some((e) => e.endpointId === endpoint.endpointId));

    const deliveries = (
      await t.request({ method: "GET", url: `${url}/deliveries`, headers: viewerA })
    ).json() as { deliveries: (Delivery & { lastError: string })[] };
    assert.equal(deliveries.deliveries.length, 1);
    assert.equal(deliveries.deliveries[0]?.status, "cancelled");
    assert.equal(deliveries.deliveries[0]?.lastError, "endpoint deleted");
    const resend = await t.request({
      method: "POST",
      url: `${url}/deliveries/${deliveries.deliveries[0]!.deliveryId}/resend`,
      headers: adminA,
    });
    assertApiError(resend, 409, "CONFLICT");
  });

  test("deliveries are listed newest first, page by page, and filter by status", async () => {
    const endpoint = await createOk(adminA, { events: ["breach.recorded"] });
    const eventIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      // Two per millisecond, so the cursor must break ties.
      if (i % 2 === 0) t.clock.advance(1);
      await t.db.transaction((tx) =>
        enqueueEvent(
          tx,
          { organizationId: a.org.organizationId, eventType: "breach.recorded", payload: { i } },
          t.clock.now(),
        ),
      );
    }
    const rows = await t.db.query<{ event_id: string }>(
      `SELECT event_id FROM webhook_deliveries WHERE organization_id = $1 AND endpoint_id = $2
        ORDER BY created_at DESC, delivery_id DESC`,
      [a.org.organizationId, endpoint.endpointId],
    );
    eventIds.push(...rows.map((r) => r.event_id));
    assert.equal(eventIds.length, 5);

    const base = `${WEBHOOKS}/${endpoint.endpointId}/deliveries`;
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? "?limit=2" : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
      const res = await t.request({ method: "GET", url: base + query, headers: viewerA });
      assert.equal(res.statusCode, 200, res.body);
      const page = res.json() as { deliveries: Delivery[]; nextCursor: string | null };
      assert.ok(page.deliveries.length <= 2);
      seen.push(...page.deliveries.map((d) => d.eventId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    assert.equal(pages, 3);
    assert.deepEqual(seen, eventIds);

    const pending = (
      await t.request({ method: "GET", url: `${base}?status=pending`, headers: viewerA })
    ).json() as {
      deliveries: Delivery[];
    };
    assert.equal(pending.deliveries.length, 5);
    const delivered = (
      await t.request({ method: "GET", url: `${base}?status=delivered`, headers: viewerA })
    ).json() as { deliveries: Delivery[] };
    assert.equal(delivered.deliveries.length, 0);

    assertApiError(
      await t.request({ method: "GET", url: `${base}?cursor=nope`, headers: viewerA }),
      400,
      "VALIDATION_ERROR",
      {
        field: "cursor",
      },
    );
    assertApiError(
      await t.request({ method: "GET", url: `${base}?status=lost`, headers: viewerA }),
      400,
      "VALIDATION_ERROR",
      {
        field: "status",
      },
    );
    assertApiError(
      await t.request({ method: "GET", url: `${base}?limit=0`, headers: viewerA }),
      400,
      "VALIDATION_ERROR",
      {
        field: "limit",
      },
    );
    // Above 200 is clamped, not refused.
    assert.equal(
      (await t.request({ method: "GET", url: `${base}?limit=5000`, headers: viewerA })).statusCode,
      200,
    );
  });

  test("viewer reads but cannot write (403)", async () => {
    const endpoint = await createOk(adminA, { events: ["dsr.created"] });
    await t.db.transaction((tx) =>
      enqueueEvent(
        tx,
        { organizationId: a.org.organizationId, eventType: "dsr.created", payload: {} },
        t.clock.now(),
      ),
    );
    const [delivery] = await t.db.query<{ delivery_id: string }>(
      "SELECT delivery_id FROM webhook_deliveries WHERE organization_id = $1 AND endpoint_id = $2",
      [a.org.organizationId, endpoint.endpointId],
    );
    const url = `${WEBHOOKS}/${endpoint.endpointId}`;
    const writes = [
      {
        method: "POST" as const,
        url: WEBHOOKS,
        payload: { url: "https://x.example.in", events: ["dsr.created"] },
      },
      { method: "PATCH" as const, url, payload: { enabled: false } },
      { method: "DELETE" as const, url },
      { method: "POST" as const, url: `${url}/deliveries/${delivery!.delivery_id}/resend` },
    ];
    for (const write of writes) {
      assertApiError(await t.request({ ...write, headers: viewerA }), 403, "FORBIDDEN");
    }
    const reads = [WEBHOOKS, url, `${url}/deliveries`, `${url}/deliveries/${delivery!.delivery_id}`];
    for (const read of reads) {
      const res = await t.request({ method: "GET", url: read, headers: viewerA });
      assert.equal(res.statusCode, 200, `${read}: ${res.body}`);
    }
    // Nothing changed.
    const after = (await t.request({ method: "GET", url, headers: viewerA })).json() as Endpoint;
    assert.equal(after.enabled, true);
    assert.equal(after.deletedAt, null);
  });

  test("another organisation's endpoint or delivery is 404 on every route", async () => {
    const endpoint = await createOk(adminA, { events: ["consent.withdrawn"] });
    await t.db.transaction((tx) =>
      enqueueEvent(
        tx,
        { organizationId: a.org.organizationId, eventType: "consent.withdrawn", payload: {} },
        t.clock.now(),
      ),
    );
    const [delivery] = await t.db.query<{ delivery_id: string }>(
      "SELECT delivery_id FROM webhook_deliveries WHERE organization_id = $1 AND endpoint_id = $2",
      [a.org.organizationId, endpoint.endpointId],
    );
    const url = `${WEBHOOKS}/${endpoint.endpointId}`;
    const deliveryUrl = `${url}/deliveries/${delivery!.delivery_id}`;
    const requests = [
      { method: "GET" as const, url },
      { method: "PATCH" as const, url, payload: { enabled: false } },
      { method: "DELETE" as const, url },
      { method: "GET" as const, url: `${url}/deliveries` },
      { method: "GET" as const, url: deliveryUrl },
      { method: "POST" as const, url: `${deliveryUrl}/resend` },
    ];
    for (const request of requests) {
      assertApiError(await t.request({ ...request, headers: adminB }), 404, "NOT_FOUND");
    }
    const listedByB = (
      await t.request({ method: "GET", url: `${WEBHOOKS}?includeDeleted=true`, headers: adminB })
    ).json() as {
      endpoints: Endpoint[];
    };
    assert.ok(!listedByB.endpoints.some((e) => e.endpointId === endpoint.endpointId));

    // A's own delivery under another of A's endpoints is not found either.
    const other = await createOk(adminA);
    assertApiError(
      await t.request({
        method: "GET",
        url: `${WEBHOOKS}/${other.endpointId}/deliveries/${delivery!.delivery_id}`,
        headers: adminA,
      }),
      404,
      "NOT_FOUND",
    );
    // Unknown and malformed ids.
    assertApiError(
      await t.request({ method: "GET", url: `${WEBHOOKS}/whe_unknown12345`, headers: adminA }),
      404,
      "NOT_FOUND",
    );
    assertApiError(
      await t.request({ method: "GET", url: `${WEBHOOKS}/not-an-id`, headers: adminA }),
      400,
      "VALIDATION_ERROR",
      {
        field: "endpointId",
      },
    );
    // And A's endpoint is untouched by B's attempts.
    const still = (await t.request({ method: "GET", url, headers: adminA })).json() as Endpoint;
    assert.equal(still.enabled, true);
    assert.equal(still.deletedAt, null);
  });

  test("routes need a staff session; writes need the CSRF token", async () => {
    assertApiError(await t.request({ method: "GET", url: WEBHOOKS }), 401, "UNAUTHORIZED");
    assertApiError(
      await t.request({ method: "GET", url: WEBHOOKS, headers: { authorization: `Bearer ${a.apiKey}` } }),
      401,
      "UNAUTHORIZED",
    );
    const { cookie } = adminA as { cookie: string };
    assertApiError(
      await t.request({
        method: "POST",
        url: WEBHOOKS,
        headers: { cookie },
        payload: { url: "https://x.example.in", events: ["dsr.created"] },
      }),
      403,
      "FORBIDDEN",
    );
  });
});

describe("GUARD_SECRETS_KEY", () => {
  const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "guard-secrets-"));
  const shared = {
    GUARD_TOKEN_SECRET: "token-secret-token-secret-token-secret",
    GUARD_AUDIT_HASH_KEYS: "1:audit-secret-audit-secret-audit-secret",
  };

  test("is generated into secrets.json in embedded mode, and added to an older file without touching the rest", () => {
    const dir = tempDir();
    try {
      const first = loadConfig({}, { dataDir: dir });
      assert.ok(first.secretsKey.length >= 32);
      assert.equal(loadConfig({}, { dataDir: dir }).secretsKey, first.secretsKey, "reused on the next start");

      const file = path.join(dir, "secrets.json");
      const older = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
      delete older.secretsKey;
      fs.writeFileSync(file, JSON.stringify(older));
      const upgraded = loadConfig({}, { dataDir: dir });
      assert.ok(upgraded.secretsKey.length >= 32);
      assert.equal(upgraded.tokenSecret, first.tokenSecret);
      assert.deepEqual(upgraded.auditKeys, first.auditKeys);
      assert.equal(loadConfig({}, { dataDir: dir }).secretsKey, upgraded.secretsKey);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("is required with DATABASE_URL, and must be 32+ characters", () => {
    const dir = tempDir();
    try {
      const env = { DATABASE_URL: "postgres://localhost/guard", ...shared };
      assert.throws(
        () => loadConfig(env, { dataDir: dir }),
        (e: unknown) => e instanceof ConfigError && /GUARD_SECRETS_KEY/.test(e.message),
      );
      const key = "secrets-key-secrets-key-secrets-key-0";
      assert.equal(loadConfig({ ...env, GUARD_SECRETS_KEY: key }, { dataDir: dir }).secretsKey, key);
      assert.throws(
        () => loadConfig({ GUARD_SECRETS_KEY: "short" }, { dataDir: dir }),
        /GUARD_SECRETS_KEY must be at least 32/,
      );
      // The other secrets keep their rules: still required with DATABASE_URL.
      assert.throws(
        () =>
          loadConfig(
            { DATABASE_URL: "postgres://localhost/guard", GUARD_SECRETS_KEY: key },
            { dataDir: dir },
          ),
        /GUARD_TOKEN_SECRET/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("guard webhooks create", () => {
  let cli: CliEnvironment;
  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    const org = await cli.run(["--json", "org", "create", "--slug", "hooks", "--name", "Hooks Ltd"]);
    assert.equal(org.code, 0, org.stderr);
  });
  after(() => cli.dispose());

  test("prints {endpointId, secret}; the secret signs as the contract specifies", async () => {
    const res = await cli.run([
      "--json",
      "webhooks",
      "create",
      "--org",
      "hooks",
      "--url",
      "https://hooks.example.in/guard",
      "--events",
      "consent.given, consent.withdrawn",
    ]);
    assert.equal(res.code, 0, res.stderr);
    const printed = res.json<{ endpointId: string; secret: string }>();
    assert.deepEqual(Object.keys(printed).sort(), ["endpointId", "secret"]);
    assert.match(printed.endpointId, /^whe_/);
    assert.match(printed.secret, SECRET_PATTERN);
    const body = '{"eventId":"evt_x"}';
    assert.equal(verifyDpdpSignature(printed.secret, body, signDpdpSignature(printed.secret, body)), true);
  });

  test("an empty or unknown event list or a bad URL is refused clearly", async () => {
    const run = (url: string, events: string) =>
      cli.run(["webhooks", "create", "--org", "hooks", "--url", url, "--events", events]);
    const empty = await run("https://hooks.example.in/guard", "");
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /events must name at least one event type/);
    const unknown = await run("https://hooks.example.in/guard", "consent.given,consent.changed");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /events\[1\] "consent.changed" is not an event type/);
    const http = await run("http://hooks.example.in/guard", "consent.given");
    assert.equal(http.code, 1);
    assert.match(http.stderr, /url must use https/);
    const missing = await cli.run(["webhooks", "create", "--org", "hooks", "--url", "https://x.example.in"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--events/);
  });
});
