// Paged lists (contract 1.8.0): each list method sends `limit`/`cursor` and returns the page with
// `nextCursor`; the iterate* methods follow `nextCursor` to the end and yield items.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GuardClient, GuardError, type DsrRequest } from "../src/index.js";
import { fakeFetch, recordingSleep, type Scripted } from "../../typescript-shared/test/support.js";

const BASE = "https://guard.example.com";

function setup(script: Scripted[] = []) {
  const { fetch, requests } = fakeFetch(script);
  const client = new GuardClient({ baseUrl: BASE, accessToken: "tok", fetch, sleep: recordingSleep().sleep });
  const urls = () => requests.map((r) => r.url.slice(BASE.length));
  return { client, requests, urls };
}

const dsr = (n: number) => ({ requestId: `dsr_${String(n).padStart(8, "0")}` }) as DsrRequest;

test("list methods send limit and cursor, and return nextCursor", async () => {
  const { client, urls, requests } = setup([{ status: 200, body: { requests: [dsr(1)], nextCursor: "c1" } }]);
  const page = await client.listDsrRequests({ limit: 1, cursor: "c0" });
  assert.equal(page.nextCursor, "c1");
  assert.deepEqual(page.requests, [dsr(1)]);
  await client.listGrievances({ limit: 2 }, { headers: { "X-Trace": "t" } });
  await client.getNotices("org_0123456789", { cursor: "a.b" });
  await client.listDsrRequests();
  assert.deepEqual(urls(), [
    "/api/v1/dsr?limit=1&cursor=c0",
    "/api/v1/grievances?limit=2",
    "/api/v1/org/org_0123456789/notices?cursor=a.b",
    "/api/v1/dsr",
  ]);
  assert.equal(requests[1]!.headers.get("x-trace"), "t");
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
  const { client, urls } = setup([
    { status: 200, body: { notices: [{ noticeId: "ntc_1" }, { noticeId: "ntc_2" }], nextCursor: "n1" } },
    { status: 200, body: { grievances: [], nextCursor: "same" } },
    { status: 200, body: { grievances: [], nextCursor: "same" } },
  ]);
  for await (const notice of client.iterateNotices("org_0123456789", { cursor: "start" })) {
    assert.equal(notice.noticeId, "ntc_1");
    break; // no second page is fetched
  }
  await assert.rejects(async () => {
    for await (const grievance of client.iterateGrievances()) void grievance;
  }, GuardError);
  assert.deepEqual(urls(), [
    "/api/v1/org/org_0123456789/notices?cursor=start",
    "/api/v1/grievances",
    "/api/v1/grievances?cursor=same",
  ]);
});

test("iterate* rejects unknown page params before any request", async () => {
  const { client, requests } = setup();
  await assert.rejects(async () => {
    for await (const item of client.iterateDsrRequests({ page: 2 } as never)) void item;
  }, /Unknown page param: page/);
  assert.equal(requests.length, 0);
});
