// Paged lists: each list method sends `limit`/`cursor` and returns the page with `nextCursor`; the
// iterate* methods follow `nextCursor` to the end; the 1.x call forms (options only) still work.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GuardClient, GuardError, type ConsentGateDecision, type DsrRequest } from "../src/index.js";
import { fakeFetch, recordingSleep, type Scripted } from "../../typescript-shared/test/support.js";

const BASE = "https://guard.example.com";

function setup(script: Scripted[] = []) {
  const { fetch, requests } = fakeFetch(script);
  const client = new GuardClient({
    baseUrl: BASE,
    apiKey: "gk_live_key",
    accessToken: "tok",
    fetch,
    sleep: recordingSleep().sleep,
  });
  const urls = () => requests.map((r) => r.url.slice(BASE.length));
  return { client, requests, urls };
}

const dsr = (n: number) => ({ requestId: `dsr_${String(n).padStart(8, "0")}` }) as DsrRequest;

test("list methods send limit and cursor, and return nextCursor", async () => {
  const { client, urls } = setup([{ status: 200, body: { requests: [dsr(1)], nextCursor: "c1" } }]);
  const page = await client.listDsrRequests({ limit: 1, cursor: "c0" });
  assert.equal(page.nextCursor, "c1");
  assert.deepEqual(page.requests, [dsr(1)]);
  await client.listGrievances({ limit: 2 });
  await client.getNotices("org_0123456789", { cursor: "a.b" });
  await client.listGateDecisions({ limit: 5, cursor: "x" });
  await client.listGateAlerts({ limit: 7 });
  assert.deepEqual(urls(), [
    "/api/v1/dsr?limit=1&cursor=c0",
    "/api/v1/grievances?limit=2",
    "/api/v1/org/org_0123456789/notices?cursor=a.b",
    "/api/v1/consent/gate/decisions?limit=5&cursor=x",
    "/api/v1/consent/gate/alerts?limit=7",
  ]);
});

test("the 1.x call forms still work: a lone options object is the request options", async () => {
  const { client, requests, urls } = setup();
  const controller = new AbortController();
  await client.listDsrRequests({ timeoutMs: 1_000, headers: { "X-Trace": "t1" } });
  await client.getNotices("org_0123456789", { signal: controller.signal });
  await client.listGateAlerts({ maxRetries: 0 });
  await client.listGrievances();
  await client.listDsrRequests({ limit: 3 }, { headers: { "X-Trace": "t2" } });
  assert.deepEqual(urls(), [
    "/api/v1/dsr",
    "/api/v1/org/org_0123456789/notices",
    "/api/v1/consent/gate/alerts",
    "/api/v1/grievances",
    "/api/v1/dsr?limit=3",
  ]);
  assert.equal(requests[0]!.headers.get("x-trace"), "t1");
  assert.equal(requests[4]!.headers.get("x-trace"), "t2");
  // A mix of both kinds in one object is a mistake, said at once.
  await assert.rejects(
    client.listDsrRequests({ limit: 3, timeoutMs: 5 } as never),
    /Unknown page param: timeoutMs/,
  );
});

test("iterate* walks every page, following nextCursor, and yields the items", async () => {
  const { client, urls } = setup([
    { status: 200, body: { requests: [dsr(1), dsr(2)], nextCursor: "p2" } },
    { status: 200, body: { requests: [dsr(3), dsr(4)], nextCursor: "p3" } },
    { status: 200, body: { requests: [dsr(5)], nextCursor: null } },
  ]);
  const seen: string[] = [];
  for await (const request of client.iterateDsrRequests({ limit: 2 })) seen.push(request.requestId);
  assert.deepEqual(
    seen,
    [1, 2, 3, 4, 5].map((n) => dsr(n).requestId),
  );
  assert.deepEqual(urls(), [
    "/api/v1/dsr?limit=2",
    "/api/v1/dsr?limit=2&cursor=p2",
    "/api/v1/dsr?limit=2&cursor=p3",
  ]);
});

test("iterate* starts from a given cursor, stops early on break, and on a list that does not advance", async () => {
  const decision = { decisionId: "gdc_1" } as ConsentGateDecision;
  const { client, urls } = setup([
    { status: 200, body: { decisions: [decision, decision], nextCursor: "n1" } },
    { status: 200, body: { alerts: [], windowMs: 1, denyThreshold: 1, nextCursor: "same" } },
    { status: 200, body: { alerts: [], windowMs: 1, denyThreshold: 1, nextCursor: "same" } },
  ]);
  for await (const d of client.iterateGateDecisions({ cursor: "start" })) {
    assert.equal(d.decisionId, "gdc_1");
    break; // no second page is fetched
  }
  await assert.rejects(async () => {
    for await (const alert of client.iterateGateAlerts()) void alert;
  }, GuardError);
  assert.deepEqual(urls(), [
    "/api/v1/consent/gate/decisions?cursor=start",
    "/api/v1/consent/gate/alerts",
    "/api/v1/consent/gate/alerts?cursor=same",
  ]);
});

test("iterateNotices and iterateGrievances read their own lists", async () => {
  const { client, urls } = setup([
    { status: 200, body: { notices: [{ noticeId: "ntc_1" }], nextCursor: null } },
    { status: 200, body: { grievances: [{ grievanceId: "grv_1" }], nextCursor: null } },
  ]);
  const notices = [];
  for await (const notice of client.iterateNotices("org_0123456789")) notices.push(notice.noticeId);
  const grievances = [];
  for await (const grievance of client.iterateGrievances({ limit: 10 }))
    grievances.push(grievance.grievanceId);
  assert.deepEqual([notices, grievances], [["ntc_1"], ["grv_1"]]);
  assert.deepEqual(urls(), ["/api/v1/org/org_0123456789/notices", "/api/v1/grievances?limit=10"]);
});
