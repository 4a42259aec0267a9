// Runs every golden vector in contract/vectors/ through the canonical-form implementations, and checks
// the rules the vectors alone do not pin (input validation, argument handling, the vector files' shape).
// Run: node --import tsx --test contract/test/canonical.test.ts
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHmac, generateKeyPairSync } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import {
  canonicalizeAuditEvent,
  canonicalizeCaptureArtifact,
  CaptureArtifactError,
  computeAuditHash,
  generateWebhookSecret,
  signCaptureArtifact,
  signDpdpSignature,
  signStandardWebhook,
  standardWebhookKey,
  validateAuditFields,
  verifyCaptureSignature,
  verifyDpdpSignature,
  verifyStandardWebhook,
  WebhookSecretError,
  type AuditHashInput,
  type CaptureArtifactSession,
  type StandardWebhookHeaders,
} from "../src/index.js";
import { buildAllVectors, VECTORS_DIR } from "../scripts/vectors/index.js";

interface VectorCase {
  id: string;
  comment: string;
  flags: string[];
  result: "valid" | "invalid";
  [key: string]: unknown;
}

interface VectorFile {
  schemaVersion: number;
  algorithm: string;
  description: string;
  numberOfCases: number;
  cases: VectorCase[];
  [key: string]: unknown;
}

const VECTOR_FILES = ["audit-hash.json", "capture-artifact.json", "webhook-signature.json"];

function load(name: string): VectorFile {
  return JSON.parse(readFileSync(VECTORS_DIR + name, "utf8")) as VectorFile;
}

const utf8Hex = (text: string): string => Buffer.from(text, "utf8").toString("hex");

describe("vector files", () => {
  test("the directory holds exactly the files this test runs", () => {
    const files = readdirSync(VECTORS_DIR).filter((name) => name.endsWith(".json"));
    assert.deepEqual(files.sort(), VECTOR_FILES);
  });

  for (const name of VECTOR_FILES) {
    test(`${name}: header, case count, unique ids, case shape`, () => {
      const file = load(name);
      assert.equal(file.schemaVersion, 1);
      assert.equal(typeof file.algorithm, "string");
      assert.equal(typeof file.description, "string");
      assert.equal(file.numberOfCases, file.cases.length);
      assert.equal(new Set(file.cases.map((c) => c.id)).size, file.cases.length, "ids must be unique");
      for (const c of file.cases) {
        assert.match(c.id, /^[a-z0-9]+(-[a-z0-9]+)*$/, `id ${c.id}`);
        assert.ok(c.comment.length > 0, `${c.id}: comment`);
        assert.ok(Array.isArray(c.flags) && c.flags.length > 0, `${c.id}: flags`);
        assert.ok(c.result === "valid" || c.result === "invalid", `${c.id}: result`);
      }
      assert.ok(
        file.cases.some((c) => c.result === "valid"),
        "some valid cases",
      );
      assert.ok(
        file.cases.some((c) => c.result === "invalid"),
        "some invalid cases",
      );
    });
  }

  test("the generator reproduces the committed files (keeping the stored ECDSA keys and signatures)", () => {
    for (const [name, built] of Object.entries(buildAllVectors())) {
      assert.deepEqual(
        load(name),
        built,
        `${name} differs from the generator: run contract/scripts/generate-vectors.ts`,
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Audit hash
// ---------------------------------------------------------------------------------------------------

describe("audit hash vectors", () => {
  const file = load("audit-hash.json");
  const secret = file.testSecret as string;

  for (const c of file.cases) {
    test(`${c.id}: ${c.comment}`, () => {
      const input = c.input as AuditHashInput;
      const canonical = c.canonical as string;
      assert.equal(canonicalizeAuditEvent(input), canonical);
      if (c.result === "valid") {
        assert.deepEqual(validateAuditFields(input), []);
        assert.equal(utf8Hex(canonical), c.canonicalUtf8Hex);
        const key = (c.secret as string | undefined) ?? secret;
        assert.equal(computeAuditHash(key, input), c.expected);
        // The expected hash restated without the implementation: a plain HMAC of the recorded string.
        assert.equal(createHmac("sha256", key).update(canonical, "utf8").digest("hex"), c.expected);
      } else {
        assert.deepEqual(
          validateAuditFields(input).map((problem) => problem.field),
          c.invalidFields,
        );
      }
    });
  }

  test("cover what CONTRACT.md requires", () => {
    const canonicals = file.cases.map((c) => c.canonical);
    assert.ok(canonicals.includes("org_abc123|notice_v1|1|Marketing|email,phone|1700000001000|brokered"));
    const sources = file.cases
      .filter((c) => c.result === "valid")
      .map((c) => (c.input as AuditHashInput).source);
    for (const source of ["brokered", "direct", "anonymous", "linked", null, undefined]) {
      assert.ok(
        sources.includes(source as AuditHashInput["source"]),
        `a valid case with source ${String(source)}`,
      );
    }
    const flags = new Set(file.cases.flatMap((c) => c.flags));
    for (const flag of [
      "data-types-empty",
      "data-types-duplicates",
      "case-sensitive",
      "utf16-order-differs-from-code-point-order",
      "non-ascii",
      "large-integer",
      "separator-in-field",
    ]) {
      assert.ok(flags.has(flag), `a case flagged ${flag}`);
    }
  });
});

describe("validateAuditFields", () => {
  const valid: AuditHashInput = {
    organizationId: "org_abc123",
    noticeId: "notice_v1",
    noticeVersion: 1,
    purpose: "Marketing",
    dataTypes: ["email", "phone"],
    givenAt: 1700000001000,
    source: "brokered",
  };
  const fieldsOf = (input: AuditHashInput) => validateAuditFields(input).map((problem) => problem.field);

  test("accepts a well-formed input, with or without a source", () => {
    assert.deepEqual(validateAuditFields(valid), []);
    assert.deepEqual(validateAuditFields({ ...valid, source: null }), []);
    assert.deepEqual(validateAuditFields({ ...valid, source: undefined }), []);
  });

  for (const field of ["organizationId", "noticeId", "purpose", "source"] as const) {
    test(`refuses "|" in ${field}`, () => {
      const problems = validateAuditFields({ ...valid, [field]: "brokered|x" } as AuditHashInput);
      assert.deepEqual(
        problems.map((problem) => problem.field),
        [field],
      );
      assert.ok((problems[0]?.reason ?? "").length > 0);
    });
  }

  test('refuses "|" and "," in a data type, naming the element', () => {
    assert.deepEqual(fieldsOf({ ...valid, dataTypes: ["email", "a|b"] }), ["dataTypes[1]"]);
    assert.deepEqual(fieldsOf({ ...valid, dataTypes: ["a,b", "email"] }), ["dataTypes[0]"]);
    assert.match(validateAuditFields({ ...valid, dataTypes: ["a,b"] })[0]?.reason ?? "", /","/);
  });

  test("refuses integers that are negative, fractional, unsafe or not numbers", () => {
    for (const bad of [-1, 0.5, 2 ** 53, Number.NaN, Infinity, "1"]) {
      assert.deepEqual(fieldsOf({ ...valid, noticeVersion: bad as number, givenAt: bad as number }), [
        "noticeVersion",
        "givenAt",
      ]);
    }
  });

  test("refuses what would make two inputs share a canonical string", () => {
    // Each pair shares a string; validation must flag at least one side of every pair.
    const pairs: Array<[AuditHashInput, AuditHashInput]> = [
      [
        { ...valid, organizationId: "a|b", noticeId: "c" },
        { ...valid, organizationId: "a", noticeId: "b|c" },
      ],
      [
        { ...valid, dataTypes: ["email,phone"] },
        { ...valid, dataTypes: ["email", "phone"] },
      ],
      [
        { ...valid, dataTypes: [""] },
        { ...valid, dataTypes: [] },
      ],
      [
        { ...valid, purpose: "a\uD800" },
        { ...valid, purpose: "a\uFFFD" },
      ],
    ];
    for (const [left, right] of pairs) {
      assert.equal(computeAuditHash("k", left), computeAuditHash("k", right));
      assert.ok(validateAuditFields(left).length + validateAuditFields(right).length > 0);
    }
  });

  test("canonicalisation leaves the caller's dataTypes in place", () => {
    const dataTypes = ["phone", "email"];
    canonicalizeAuditEvent({ ...valid, dataTypes });
    assert.deepEqual(dataTypes, ["phone", "email"]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Webhook signatures
// ---------------------------------------------------------------------------------------------------

interface StandardCaseInput {
  headers: StandardWebhookHeaders;
  body: string;
  secret?: string;
  nowSeconds: number;
  toleranceSeconds?: number;
}

describe("webhook signature vectors", () => {
  const file = load("webhook-signature.json");
  const testSecret = file.testSecret as string;

  for (const c of file.cases) {
    test(`${c.id}: ${c.comment}`, () => {
      if (c.scheme === "x-dpdp-signature") {
        const input = c.input as { body: string; header: string | null; secret?: string };
        const secret = input.secret ?? testSecret;
        assert.equal(verifyDpdpSignature(secret, input.body, input.header), c.result === "valid");
        assert.equal(
          verifyDpdpSignature(secret, Buffer.from(input.body, "utf8"), input.header),
          c.result === "valid",
        );
        if (c.expectedSignature !== undefined) {
          assert.equal(signDpdpSignature(secret, input.body), c.expectedSignature);
          assert.equal(
            createHmac("sha256", Buffer.from(secret, "utf8")).update(input.body, "utf8").digest("hex"),
            c.expectedSignature,
          );
        }
        return;
      }
      assert.equal(c.scheme, "standard-webhooks");
      const input = c.input as StandardCaseInput;
      const secret = input.secret ?? testSecret;
      const outcome = verifyStandardWebhook({ ...input, secret });
      assert.deepEqual(outcome, c.result === "valid" ? { ok: true } : { ok: false, reason: c.reason });
      const { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": header } = input.headers;
      if (c.signedContent !== undefined) {
        assert.equal(c.signedContent, `${String(id)}.${String(timestamp)}.${input.body}`);
        if (c.result === "valid") {
          // Restated without the implementation: one v1 entry is the HMAC of the recorded content.
          const digest = createHmac("sha256", standardWebhookKey(secret))
            .update(c.signedContent as string, "utf8")
            .digest("base64");
          assert.ok(String(header).split(" ").includes(`v1,${digest}`));
        }
      }
      if (c.expectedSignature !== undefined) {
        const signed = signStandardWebhook({
          id: String(id),
          timestamp: Number(timestamp),
          body: input.body,
          secret,
        });
        assert.equal(signed, c.expectedSignature);
      }
    });
  }

  test("cover the required cases", () => {
    const flags = new Set(file.cases.flatMap((c) => c.flags));
    for (const flag of [
      "case-insensitive",
      "wrong-secret",
      "tampered",
      "prefix",
      "truncated",
      "trailing-garbage",
      "missing",
      "multiple-signatures",
      "replay-window",
      "timestamp-text",
      "interop",
    ]) {
      assert.ok(flags.has(flag), `a case flagged ${flag}`);
    }
    for (const reason of [
      "missing_header",
      "invalid_timestamp",
      "timestamp_too_old",
      "timestamp_too_new",
      "no_matching_signature",
    ]) {
      assert.ok(
        file.cases.some((c) => c.reason === reason),
        `a case with reason ${reason}`,
      );
    }
  });
});

describe("webhook signature functions", () => {
  const body = '{"eventId":"evt_1"}';

  test("generateWebhookSecret: whsec_ + base64 of 32 random bytes, usable by both schemes", () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(standardWebhookKey(secret).length, 32);
    assert.notEqual(generateWebhookSecret(), secret);
    assert.ok(verifyDpdpSignature(secret, body, signDpdpSignature(secret, body)));
    const headers = {
      "webhook-id": "evt_1",
      "webhook-timestamp": "1700000000",
      "webhook-signature": signStandardWebhook({ id: "evt_1", timestamp: 1700000000, body, secret }),
    };
    assert.deepEqual(verifyStandardWebhook({ headers, body, secret, nowSeconds: 1700000000 }), { ok: true });
  });

  test("X-DPDP-Signature: a non-string header is refused, not thrown on", () => {
    const secret = generateWebhookSecret();
    const signature = signDpdpSignature(secret, body);
    assert.equal(verifyDpdpSignature(secret, body, [signature]), false);
    assert.equal(verifyDpdpSignature(secret, body, undefined), false);
  });

  test("Standard Webhooks: the current time is the default clock", () => {
    const secret = generateWebhookSecret();
    const now = Math.floor(Date.now() / 1000);
    const sign = (timestamp: number) => ({
      "webhook-id": "evt_1",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signStandardWebhook({ id: "evt_1", timestamp, body, secret }),
    });
    assert.deepEqual(verifyStandardWebhook({ headers: sign(now), body, secret }), { ok: true });
    assert.deepEqual(verifyStandardWebhook({ headers: sign(now - 3600), body, secret }), {
      ok: false,
      reason: "timestamp_too_old",
    });
  });

  test("Standard Webhooks: array-valued headers count as missing", () => {
    const secret = generateWebhookSecret();
    const headers = { "webhook-id": ["a", "b"], "webhook-timestamp": "1", "webhook-signature": "v1,x" };
    assert.deepEqual(verifyStandardWebhook({ headers, body, secret, nowSeconds: 1 }), {
      ok: false,
      reason: "missing_header",
    });
  });

  test("Standard Webhooks: bad secrets and timestamps are caller errors", () => {
    for (const secret of ["whsec_", "whsec_not base64!", "whsec_AAE", ""]) {
      assert.throws(() => standardWebhookKey(secret), WebhookSecretError, secret);
      assert.throws(() => signStandardWebhook({ id: "a", timestamp: 1, body, secret }), WebhookSecretError);
    }
    const secret = generateWebhookSecret();
    for (const timestamp of [1.5, -1, Number.NaN, 2 ** 53]) {
      assert.throws(() => signStandardWebhook({ id: "a", timestamp, body, secret }), RangeError);
    }
    // A NaN tolerance or clock would make both window comparisons false and accept any timestamp.
    const headers = {
      "webhook-id": "a",
      "webhook-timestamp": "1",
      "webhook-signature": signStandardWebhook({ id: "a", timestamp: 1, body, secret }),
    };
    for (const bad of [
      { toleranceSeconds: Number.NaN },
      { toleranceSeconds: -1 },
      { nowSeconds: Number.NaN },
    ]) {
      assert.throws(
        () => verifyStandardWebhook({ headers, body, secret, nowSeconds: 10 ** 9, ...bad }),
        RangeError,
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Capture artefact (dpdpcca/2)
// ---------------------------------------------------------------------------------------------------

interface CaptureCaseInput {
  session: CaptureArtifactSession;
  publicKey?: string;
  signature?: string;
}

describe("capture artefact vectors", () => {
  const file = load("capture-artifact.json");
  const keys = file.testKeys as Record<
    string,
    { privateKeyPkcs8Base64?: string; publicKeySpkiBase64: string }
  >;

  for (const c of file.cases) {
    test(`${c.id}: ${c.comment}`, () => {
      const input = c.input as CaptureCaseInput;
      if (c.error !== undefined) {
        const expected = c.error as { code: string; field: string };
        assert.equal(c.result, "invalid");
        assert.throws(
          () => canonicalizeCaptureArtifact(input.session),
          (error: unknown) =>
            error instanceof CaptureArtifactError &&
            error.code === expected.code &&
            error.field === expected.field,
        );
        return;
      }
      const canonical = canonicalizeCaptureArtifact(input.session);
      assert.equal(canonical, c.canonical);
      assert.equal(utf8Hex(canonical), c.canonicalUtf8Hex);
      const key = keys[input.publicKey ?? ""];
      assert.ok(key !== undefined, `testKeys has ${String(input.publicKey)}`);
      assert.equal(
        verifyCaptureSignature(key.publicKeySpkiBase64, canonical, input.signature ?? ""),
        c.result === "valid",
      );
    });
  }

  test("cover the required cases", () => {
    const flags = new Set(file.cases.flatMap((c) => c.flags));
    for (const flag of [
      "byte-length",
      "grant-sorting",
      "principal-handle-absent",
      "utf8-order-differs-from-utf16-order",
      "duplicate-purpose-key",
      "tampered",
      "wrong-key",
    ]) {
      assert.ok(flags.has(flag), `a case flagged ${flag}`);
    }
    // A multibyte case really has byte lengths that differ from character counts.
    const multibyte = file.cases.find((c) => c.flags.includes("byte-length"));
    assert.ok(
      multibyte !== undefined &&
        Buffer.byteLength(String(multibyte.canonical)) > String(multibyte.canonical).length,
    );
  });

  test("the stored device key pair signs artefacts that verify", () => {
    const device = keys.device;
    assert.ok(device?.privateKeyPkcs8Base64 !== undefined);
    const canonical = String(file.cases[0]?.canonical);
    const signature = signCaptureArtifact(device.privateKeyPkcs8Base64, canonical);
    assert.equal(Buffer.from(signature, "base64").length, 64);
    assert.ok(verifyCaptureSignature(device.publicKeySpkiBase64, canonical, signature));
    assert.ok(!verifyCaptureSignature(device.publicKeySpkiBase64, canonical + " ", signature));
  });
});

describe("capture artefact functions", () => {
  test("verifyCaptureSignature answers false on any malformed argument and never throws", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const spki = publicKey.export({ format: "der", type: "spki" }).toString("base64");
    const signature = signCaptureArtifact(privateKey, "x");
    assert.ok(verifyCaptureSignature(spki, "x", signature));
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey;
    const rsaSpki = rsa.export({ format: "der", type: "spki" }).toString("base64");
    const garbage: unknown[] = [undefined, null, 42, "", "%%%", {}];
    for (const bad of garbage) {
      assert.equal(verifyCaptureSignature(bad as string, "x", signature), false);
      assert.equal(verifyCaptureSignature(spki, bad as string, signature), false);
      assert.equal(verifyCaptureSignature(spki, "x", bad as string), false);
    }
    assert.equal(verifyCaptureSignature(rsaSpki, "x", signature), false);
  });

  test("a session object is not modified by canonicalisation", () => {
    const session: CaptureArtifactSession = {
      clientSessionId: "s",
      organizationId: "o",
      deviceId: "d",
      noticeId: "n",
      noticeVersion: 1,
      noticeLocale: "en",
      purposeGrants: [
        { purposeKey: "b", status: "opt_in" },
        { purposeKey: "a", status: "opt_out" },
      ],
      dataTypes: ["y", "x"],
      capturedAtClient: 0,
      channel: "qr",
    };
    const before = structuredClone(session);
    assert.equal(
      canonicalizeCaptureArtifact(session),
      "9:dpdpcca/2|1:s|1:o|1:d|1:n|1:1|2:en|1:2|1:a|7:opt_out|1:b|6:opt_in|1:2|1:x|1:y|4:none|4:null|1:0|2:qr",
    );
    assert.deepEqual(session, before);
  });
});
