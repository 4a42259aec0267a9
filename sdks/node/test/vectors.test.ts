// Every golden vector of contract/vectors/ that a server SDK implements: the audit hash and both
// webhook signature schemes. The files are read from the contract, never copied.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import {
  canonicalizeAuditEvent,
  computeAuditHash,
  GuardWebhookSecretError,
  validateAuditFields,
  verifyStandardWebhook,
  verifyWebhookSignature,
  type AuditHashInput,
} from "../src/index.js";

interface VectorFile<Case> {
  numberOfCases: number;
  testSecret: string;
  cases: Case[];
}

function load<Case>(name: string): VectorFile<Case> {
  const file = JSON.parse(
    fs.readFileSync(new URL(`../../../contract/vectors/${name}`, import.meta.url), "utf8"),
  ) as VectorFile<Case>;
  assert.equal(file.cases.length, file.numberOfCases, `${name}: numberOfCases disagrees with cases`);
  return file;
}

interface AuditCase {
  id: string;
  input: AuditHashInput;
  canonical: string;
  canonicalUtf8Hex?: string;
  result: "valid" | "invalid";
  expected?: string;
  secret?: string;
  invalidFields?: string[];
}

const audit = load<AuditCase>("audit-hash.json");
for (const c of audit.cases) {
  test(`audit-hash ${c.id}`, () => {
    assert.equal(canonicalizeAuditEvent(c.input), c.canonical);
    const problems = validateAuditFields(c.input).map((p) => p.field);
    if (c.result === "valid") {
      assert.deepEqual(problems, []);
      assert.equal(Buffer.from(c.canonical, "utf8").toString("hex"), c.canonicalUtf8Hex);
      assert.equal(computeAuditHash(c.secret ?? audit.testSecret, c.input), c.expected);
    } else {
      assert.deepEqual(problems, c.invalidFields);
    }
  });
}

test("canonicalizeAuditEvent does not reorder the caller's data types", () => {
  const dataTypes = ["phone", "email"];
  canonicalizeAuditEvent({
    organizationId: "o",
    noticeId: "n",
    noticeVersion: 1,
    purpose: "p",
    dataTypes,
    givenAt: 1,
  });
  assert.deepEqual(dataTypes, ["phone", "email"]);
});

interface WebhookCase {
  id: string;
  scheme: "x-dpdp-signature" | "standard-webhooks";
  input: {
    secret?: string;
    body: string;
    header?: string | null;
    headers?: Record<string, string>;
    toleranceSeconds?: number;
    nowSeconds?: number;
  };
  result: "valid" | "invalid";
  reason?: string;
}

const webhooks = load<WebhookCase>("webhook-signature.json");
for (const c of webhooks.cases) {
  test(`webhook-signature ${c.id}`, () => {
    const secret = c.input.secret ?? webhooks.testSecret;
    if (c.scheme === "x-dpdp-signature") {
      assert.equal(verifyWebhookSignature(secret, c.input.body, c.input.header), c.result === "valid");
      // The same answer for the body as bytes, as a server framework hands it over.
      assert.equal(
        verifyWebhookSignature(secret, Buffer.from(c.input.body, "utf8"), c.input.header),
        c.result === "valid",
      );
      return;
    }
    const options = {
      ...(c.input.toleranceSeconds === undefined ? {} : { toleranceSeconds: c.input.toleranceSeconds }),
      ...(c.input.nowSeconds === undefined ? {} : { nowSeconds: c.input.nowSeconds }),
    };
    const outcome = verifyStandardWebhook(secret, c.input.body, c.input.headers ?? {}, options);
    assert.deepEqual(outcome, c.result === "valid" ? { valid: true } : { valid: false, reason: c.reason });
  });
}

test("the Standard Webhooks verifier reads header names in any case, and Fetch Headers", () => {
  const c = webhooks.cases.find((x) => x.id === "sw-valid")!;
  const upper = Object.fromEntries(Object.entries(c.input.headers!).map(([k, v]) => [k.toUpperCase(), v]));
  const options = { nowSeconds: c.input.nowSeconds! };
  assert.deepEqual(verifyStandardWebhook(webhooks.testSecret, c.input.body, upper, options), { valid: true });
  assert.deepEqual(
    verifyStandardWebhook(webhooks.testSecret, c.input.body, new Headers(c.input.headers), options),
    { valid: true },
  );
  assert.deepEqual(
    verifyStandardWebhook(
      webhooks.testSecret,
      c.input.body,
      { ...c.input.headers, "webhook-id": ["a", "b"] },
      options,
    ),
    { valid: false, reason: "missing_header" },
  );
});

test("configuration mistakes throw instead of reading as a failed verification", () => {
  const c = webhooks.cases.find((x) => x.id === "sw-valid")!;
  for (const secret of [
    "whsec_not base64!",
    "whsec_",
    "whsec_AAECAwQ",
    "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
  ]) {
    assert.throws(
      () => verifyStandardWebhook(secret, c.input.body, c.input.headers!),
      GuardWebhookSecretError,
      secret,
    );
  }
  assert.throws(
    () =>
      verifyStandardWebhook(webhooks.testSecret, c.input.body, c.input.headers!, { toleranceSeconds: -1 }),
    RangeError,
  );
  assert.throws(
    () =>
      verifyStandardWebhook(webhooks.testSecret, c.input.body, c.input.headers!, { nowSeconds: Number.NaN }),
    RangeError,
  );
  assert.throws(() => verifyWebhookSignature("", c.input.body, "00"), GuardWebhookSecretError);
});
