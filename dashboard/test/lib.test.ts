// The router's path helpers and the SLA/date helpers (pure, so they run here without a browser).
import assert from "node:assert/strict";
import { test } from "node:test";
import { appPath, matchPath, safeNext, signInPathFor, withQuery } from "../src/lib/paths.js";
import { describeDue, DUE_SOON_MS, dueState, formatDate, formatSpan } from "../src/lib/time.js";

test("matchPath: literal segments, :params (decoded), trailing slash ignored", () => {
  assert.deepEqual(matchPath("/", "/"), {});
  assert.deepEqual(matchPath("/rights/dsr/:requestId", "/rights/dsr/ab%20c"), { requestId: "ab c" });
  assert.deepEqual(matchPath("/notices", "/notices/"), {});
  assert.equal(matchPath("/notices", "/notices/x"), null);
  assert.equal(matchPath("/rights/:queue", "/banner/x"), null);
  assert.equal(matchPath("/a/:id", "/a/%E0%A4"), null, "a malformed escape matches nothing");
});

test("appPath strips the /dashboard base; withQuery drops empty values", () => {
  assert.equal(appPath("/dashboard", ""), "/");
  assert.equal(appPath("/dashboard/", ""), "/");
  assert.equal(appPath("/dashboard/rights/dsr", "?status=open"), "/rights/dsr?status=open");
  assert.equal(
    withQuery("/rights/dsr", { status: "open", type: "", page: undefined, overdue: true }),
    "/rights/dsr?status=open&overdue=true",
  );
  assert.equal(withQuery("/export", {}), "/export");
});

test("safeNext refuses anything that could leave the app; signInPathFor carries the page", () => {
  assert.equal(safeNext("/rights/dsr?status=open"), "/rights/dsr?status=open");
  for (const bad of [null, "", "//evil.example", "https://evil.example", "/\\evil.example", "evil"]) {
    assert.equal(safeNext(bad), "/", String(bad));
  }
  assert.equal(signInPathFor("/export?from=1"), "/sign-in?next=%2Fexport%3Ffrom%3D1");
  assert.equal(signInPathFor("/"), "/sign-in");
  assert.equal(signInPathFor("/sign-in?next=%2Fx"), "/sign-in");
});

test("dueState and describeDue: ok, due soon under 24 h, overdue at the deadline, in words", () => {
  const now = 1_000_000_000_000;
  assert.equal(DUE_SOON_MS, 86_400_000);
  assert.equal(dueState(now + DUE_SOON_MS, now), "ok");
  assert.equal(dueState(now + DUE_SOON_MS - 1, now), "due-soon");
  assert.equal(dueState(now, now), "overdue");
  assert.deepEqual(describeDue(now + 3 * DUE_SOON_MS + 4 * 3_600_000, now), {
    state: "ok",
    text: "Due in 3 days 4 h",
  });
  assert.deepEqual(describeDue(now + 5 * 3_600_000, now), { state: "due-soon", text: "Due soon: 5 h left" });
  assert.deepEqual(describeDue(now - 90 * 60_000, now), { state: "overdue", text: "Overdue by 1 h 30 min" });
  assert.equal(formatSpan(30_000), "under a minute");
});

test("formatDate: the locale's format with the time zone named; a missing date is a dash", () => {
  const at = Date.parse("2026-03-05T10:30:00Z");
  assert.equal(formatDate(at, "en-GB", "UTC"), "5 Mar 2026, 10:30 UTC");
  assert.match(formatDate(at, "en-IN", "Asia/Kolkata"), /4:00\s?pm IST/i);
  assert.equal(formatDate(null), "—");
});
