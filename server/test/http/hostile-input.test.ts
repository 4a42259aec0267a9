// Hostile JSON bodies (issue 22 items 5 and 6): nesting deeper than 64 levels, and text PostgreSQL
// cannot hold (a lone surrogate, NUL) in any key or value, are 400 VALIDATION_ERROR naming the body
// or the field, on every route, with or without an Idempotency-Key; before, they were 500s.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_BODY_DEPTH, bodyFailure, parameterFailure } from "../../src/http/request-text.js";
import { assertApiError } from "../support/api-error.js";
import { publishTestNotice } from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

const ANONYMOUS = "/api/v1/consents/anonymous";
const BROKER = "/api/v1/auth/broker-token";
const SIGN_IN = "/api/v1/staff/session";

/** `levels` nested arrays as JSON text: `[[...]]`. */
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

/** Logged at error level (pino's 50) or above: a 500's stack trace. */
const errorLines = (logs: string[]) =>
  logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

describe("hostile JSON bodies", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let noticeId: string;
  let guest = 0;
  /**
   * A valid anonymous consent as JSON text, with `extra` members appended; `anonymousId` is JSON
   * string content as written (so `\\ud800` is an escape), a new guest each time by default.
   */
  const consentText = (extra = "", anonymousId = `guest-${++guest}`) =>
    JSON.stringify({
      organizationId: seeded.org.organizationId,
      noticeId,
      purpose: "Marketing",
      dataTypes: ["email"],
      anonymousId: "@id@",
    })
      .replace('"@id@"', `"${anonymousId}"`)
      .replace(/}$/, `${extra}}`);
  const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
    t.request({ method: "POST", url, headers: { "content-type": "application/json", ...headers }, payload });

  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, seeded)).noticeId;
  });
  after(() => t.close());

  test("nesting deeper than 64 levels is 400 naming the body, with or without an Idempotency-Key", async () => {
    const logged = t.logs.length;
    const deep = `,"x":${nested(10_000)}`;
    const cases: Array<[string, string, Record<string, string>]> = [
      [ANONYMOUS, consentText(deep), { "idempotency-key": "deep-1" }],
      [ANONYMOUS, consentText(deep), {}],
      [
        BROKER,
        `{"externalId":"u1","x":${nested(10_000)}}`,
        { ...bearer(seeded.apiKey), "idempotency-key": "deep-2" },
      ],
      [SIGN_IN, `{"organizationSlug":"acme","x":${nested(100)}}`, {}],
      [BROKER, nested(65), bearer(seeded.apiKey)],
    ];
    for (const [url, payload, headers] of cases) {
      assertApiError(await post(url, payload, headers), 400, "VALIDATION_ERROR", {
        field: "body",
        message: /more than 64 levels deep/,
      });
    }
    assert.deepEqual(errorLines(t.logs.slice(logged)), [], "nothing is logged as an error");
  });

  test("64 levels are accepted; the 65th is refused", async () => {
    assert.equal(MAX_BODY_DEPTH, 64);
    // The body is level 1, so `x` may hold 63 more.
    const ok = await post(ANONYMOUS, consentText(`,"x":${nested(MAX_BODY_DEPTH - 1)}`), {
      "idempotency-key": "ok-64",
    });
    assert.equal(ok.statusCode, 201, ok.body);
    const replay = await post(
      ANONYMOUS,
      consentText(`,"x":${nested(MAX_BODY_DEPTH - 1)}`, `guest-${guest}`),
      {
        "idempotency-key": "ok-64",
      },
    );
    assert.equal(replay.statusCode, 201, replay.body);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assertApiError(
      await post(ANONYMOUS, consentText(`,"x":${nested(MAX_BODY_DEPTH)}`)),
      400,
      "VALIDATION_ERROR",
      {
        field: "body",
      },
    );
  });

  test("a lone surrogate in any string or key is 400 naming the field", async () => {
    const logged = t.logs.length;
    const lone = "\\ud800";
    const cases: Array<[string, string, Record<string, string>, string]> = [
      [ANONYMOUS, consentText("", `g${lone}x`), {}, "anonymousId"],
      [ANONYMOUS, consentText("", `g${lone}x`), { "idempotency-key": "lone-1" }, "anonymousId"],
      [ANONYMOUS, consentText("", "g\\udc00"), {}, "anonymousId"],
      [ANONYMOUS, consentText().replace('["email"]', `["email","x${lone}"]`), {}, "dataTypes[1]"],
      [ANONYMOUS, consentText(`,"meta":{"list":[{"k${lone}":1}]}`), {}, "meta.list[0].k\uFFFD"],
      [ANONYMOUS, consentText(`,"k${lone}":"v"`), {}, "k\uFFFD"],
      [BROKER, `{"externalId":"u${lone}x"}`, bearer(seeded.apiKey), "externalId"],
    ];
    for (const [url, payload, headers, field] of cases) {
      assertApiError(await post(url, payload, headers), 400, "VALIDATION_ERROR", {
        field,
        message: /unpaired UTF-16 surrogate/,
      });
    }
    assert.deepEqual(errorLines(t.logs.slice(logged)), [], "nothing is logged as an error");
  });

  test("paired surrogates (an emoji) and a literal backslash-u are ordinary text", async () => {
    const emoji = await post(ANONYMOUS, consentText("", "guest-\\ud83d\\ude00"));
    assert.equal(emoji.statusCode, 201, emoji.body);
    const literal = await post(ANONYMOUS, consentText("", "guest-\\\\ud800"));
    assert.equal(literal.statusCode, 201, literal.body);
    const [row] = await t.db.query<{ anonymous_id: string }>(
      "SELECT anonymous_id FROM consents WHERE consent_id = $1",
      [emoji.json().consentId],
    );
    assert.equal(row?.anonymous_id, "guest-😀");
  });

  test("NUL is refused where it enters, naming the field: body and query", async () => {
    assertApiError(
      await post(BROKER, '{"externalId":"user\\u000042"}', bearer(seeded.apiKey)),
      400,
      "VALIDATION_ERROR",
      {
        field: "externalId",
        message: /NUL/,
      },
    );
    assertApiError(await post(ANONYMOUS, consentText(`,"\\u0000":1`)), 400, "VALIDATION_ERROR", {
      field: "\uFFFD",
      message: /NUL/,
    });
    const query = await t.request({
      method: "GET",
      url: `/api/v1/org/${seeded.org.organizationId}/banner-config?appId=com.example%00app`,
    });
    assertApiError(query, 400, "VALIDATION_ERROR", { field: "appId", message: /NUL/ });
  });

  test("query and path values: every value of a repeated parameter, and the names, are checked", () => {
    assert.equal(parameterFailure({ a: "ok", b: ["ok", "x\ud800"] })?.field, "b");
    assert.equal(parameterFailure({ [`n\u0000`]: "v" })?.field, "n\uFFFD");
    assert.equal(parameterFailure({ a: "ok", n: 5, b: true, e: "😀" }), undefined);
    assert.equal(bodyFailure({ a: [{ b: "\udfff" }] })?.field, "a[0].b");
    assert.equal(bodyFailure({ a: [{ b: "\udfff" }] }, false), undefined, "depth only");
  });
});
