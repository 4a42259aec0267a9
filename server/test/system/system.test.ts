import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp } from "../support/harness.js";

describe("system routes and the shared error path", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("liveness and readiness", async () => {
    assert.deepEqual((await t.request({ method: "GET", url: "/healthz" })).json(), { status: "ok" });
    const ready = await t.request({ method: "GET", url: "/readyz" });
    assert.equal(ready.statusCode, 200);
  });

  test("every response carries x-request-id, echoed in error bodies", async () => {
    const res = await t.request({ method: "GET", url: "/no/such/route" });
    assert.equal(res.statusCode, 404);
    const body = res.json();
    assert.equal(body.code, "NOT_FOUND");
    assert.equal(body.requestId, res.headers["x-request-id"]);
    assert.match(String(res.headers["x-request-id"]), /^req_/);
  });
});
