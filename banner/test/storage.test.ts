import assert from "node:assert/strict";
import { test } from "node:test";
import {
  anonymousIdCookie,
  cookieName,
  mintAnonymousId,
  needsDecision,
  parseDecision,
  readCookie,
} from "../src/storage.js";
import type { BannerNotice, StoredDecision } from "../src/types.js";

const DECISION: StoredDecision = {
  v: 1,
  anonymousId: "5f0c3c52-6b3a-4f4e-9d1e-0b8f3c2a1d00",
  noticeId: "ntc_1",
  noticeVersion: 2,
  purposes: { Analytics: true, Marketing: false },
  consentIds: { Analytics: "cns_1" },
  decidedAt: 1_700_000_000_000,
};

const NOTICE = {
  _id: "ntc_1",
  organizationId: "org_1",
  version: 2,
  status: "published",
  itemized: [
    { purpose: "Analytics", personalDataDescription: "Device id" },
    { purpose: "Marketing", personalDataDescription: "Email" },
  ],
  content: { en: { title: "t", body: "b" } },
} as BannerNotice;

test("a stored decision round-trips", () => {
  assert.deepEqual(parseDecision(JSON.stringify(DECISION)), DECISION);
});

test("absent, corrupt or foreign values are no decision", () => {
  const bad: Array<string | null> = [
    null,
    "",
    "{not json",
    "null",
    "[]",
    '"a string"',
    JSON.stringify({ ...DECISION, v: 2 }),
    JSON.stringify({ ...DECISION, anonymousId: 7 }),
    JSON.stringify({ ...DECISION, anonymousId: "has spaces and <tags>" }),
    JSON.stringify({ ...DECISION, noticeId: "" }),
    JSON.stringify({ ...DECISION, noticeVersion: "2" }),
    JSON.stringify({ ...DECISION, noticeVersion: 2.5 }),
    JSON.stringify({ ...DECISION, purposes: { Analytics: "yes" } }),
    JSON.stringify({ ...DECISION, purposes: [true] }),
    JSON.stringify({ ...DECISION, consentIds: { Analytics: 1 } }),
    JSON.stringify({ ...DECISION, decidedAt: null }),
    // Another script's value under the same key.
    JSON.stringify({ theme: "dark" }),
  ];
  for (const raw of bad) assert.equal(parseDecision(raw), null, String(raw));
});

test("unknown extra fields are dropped, not kept", () => {
  const parsed = parseDecision(JSON.stringify({ ...DECISION, extra: "x" }));
  assert.deepEqual(parsed, DECISION);
});

test("the banner asks when there is no decision, the notice or its version changed, or a purpose is new", () => {
  assert.equal(needsDecision(null, NOTICE), true);
  assert.equal(needsDecision(DECISION, NOTICE), false);
  assert.equal(needsDecision({ ...DECISION, noticeVersion: 1 }, NOTICE), true);
  assert.equal(needsDecision({ ...DECISION, noticeId: "ntc_other" }, NOTICE), true);
  assert.equal(needsDecision({ ...DECISION, purposes: { Analytics: true } }, NOTICE), true);
  // A refusal is a decision too.
  assert.equal(
    needsDecision({ ...DECISION, purposes: { Analytics: false, Marketing: false } }, NOTICE),
    false,
  );
});

test("the anonymous id cookie: first party, a year, Lax, Secure on https", () => {
  assert.equal(
    anonymousIdCookie("demo", "abc-1", false),
    "guard_anon_demo=abc-1; Path=/; Max-Age=31536000; SameSite=Lax",
  );
  assert.match(anonymousIdCookie("demo", "abc-1", true), /; Secure$/);
  assert.equal(cookieName("odd slug;x"), "guard_anon_odd_slug_x");
});

test("reading the cookie back ignores other cookies and malformed values", () => {
  assert.equal(readCookie("a=1; guard_anon_demo=abc-1; b=2", "guard_anon_demo"), "abc-1");
  assert.equal(readCookie("xguard_anon_demo=zzz", "guard_anon_demo"), undefined);
  assert.equal(readCookie("guard_anon_demo=<script>", "guard_anon_demo"), undefined);
  assert.equal(readCookie("", "guard_anon_demo"), undefined);
});

test("anonymous ids are UUIDv4, also where randomUUID is missing (plain http)", () => {
  const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  assert.match(mintAnonymousId(), v4);
  const noRandomUuid = { getRandomValues: (bytes: Uint8Array) => crypto.getRandomValues(bytes) } as Crypto;
  const ids = new Set(Array.from({ length: 50 }, () => mintAnonymousId(noRandomUuid)));
  assert.equal(ids.size, 50);
  for (const id of ids) assert.match(id, v4);
});
