// Writes the golden vectors in contract/vectors/ from the fixed inputs below.
//
//   node --import tsx contract/scripts/generate-vectors.ts            # write (keeps ECDSA keys and signatures)
//   node --import tsx contract/scripts/generate-vectors.ts --check    # exit 1 if a file would change
//   node --import tsx contract/scripts/generate-vectors.ts --force    # new ECDSA keys and signatures
//
// Everything is deterministic except ECDSA signing, which is randomised: the test keys and every
// signature already in capture-artifact.json are kept, and only a case that is new (or whose canonical
// string changed) is signed afresh. `--force` makes new keys and re-signs everything; that changes the
// published vectors, so it needs the same review as any other vector change.
// The expected values come from the implementation; they were cross-checked once against independent
// Python and OpenSSL implementations (see contract/vectors/README.md), and contract/test/canonical.test.ts
// checks that these builders still reproduce the committed files.
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  canonicalizeAuditEvent,
  canonicalizeCaptureArtifact,
  CaptureArtifactError,
  computeAuditHash,
  signDpdpSignature,
  signStandardWebhook,
  standardWebhookKey,
  validateAuditFields,
  type AuditHashInput,
  type CaptureArtifactSession,
} from "../src/canonical/index.js";

export const VECTORS_DIR = fileURLToPath(new URL("../vectors/", import.meta.url));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface VectorCase {
  id: string;
  comment: string;
  flags: string[];
  [key: string]: Json;
}

function vectorFile(header: JsonObject, cases: VectorCase[]): JsonObject {
  const ids = new Set(cases.map((c) => c.id));
  if (ids.size !== cases.length) throw new Error("vector case ids must be unique");
  return { schemaVersion: 1, ...header, numberOfCases: cases.length, cases: cases as Json[] };
}

/** Drops `undefined` members, so the object equals its JSON round trip. */
function json(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

const utf8Hex = (text: string): string => Buffer.from(text, "utf8").toString("hex");

// ---------------------------------------------------------------------------------------------------
// Audit hash
// ---------------------------------------------------------------------------------------------------

export const AUDIT_TEST_SECRET = "guard-audit-hash-test-secret-v1";

const CONTRACT_EXAMPLE: AuditHashInput = {
  organizationId: "org_abc123",
  noticeId: "notice_v1",
  noticeVersion: 1,
  purpose: "Marketing",
  dataTypes: ["email", "phone"],
  givenAt: 1700000001000,
  source: "brokered",
};

function auditInput(changes: Partial<AuditHashInput>): AuditHashInput {
  return { ...CONTRACT_EXAMPLE, ...changes };
}

function auditCase(
  id: string,
  comment: string,
  flags: string[],
  input: AuditHashInput,
  secret?: string,
): VectorCase {
  if (validateAuditFields(input).length > 0) throw new Error(`${id}: a valid case must pass validation`);
  const canonical = canonicalizeAuditEvent(input);
  return {
    id,
    comment,
    flags,
    ...(secret === undefined ? {} : { secret }),
    input: json(input),
    canonical,
    canonicalUtf8Hex: utf8Hex(canonical),
    result: "valid",
    expected: computeAuditHash(secret ?? AUDIT_TEST_SECRET, input),
  };
}

function refusedAuditCase(id: string, comment: string, flags: string[], input: AuditHashInput): VectorCase {
  const invalidFields = validateAuditFields(input).map((problem) => problem.field);
  if (invalidFields.length === 0) throw new Error(`${id}: an invalid case must fail validation`);
  return {
    id,
    comment,
    flags,
    input: json(input),
    canonical: canonicalizeAuditEvent(input),
    result: "invalid",
    invalidFields,
  };
}

export function buildAuditHashVectors(): JsonObject {
  const { source: _dropped, ...withoutSource } = CONTRACT_EXAMPLE;
  const cases: VectorCase[] = [
    auditCase(
      "contract-example",
      "The example canonical string of CONTRACT.md.",
      ["contract-example", "source-brokered"],
      CONTRACT_EXAMPLE,
    ),
    auditCase(
      "source-direct",
      "source `direct` (server-side /cm/v1 consent).",
      ["source-direct"],
      auditInput({ purpose: "Service delivery", dataTypes: ["name"], source: "direct" }),
    ),
    auditCase(
      "source-anonymous",
      "source `anonymous` (banner or widget capture).",
      ["source-anonymous"],
      auditInput({
        organizationId: "org_9f8e7d",
        noticeId: "ntc_cookie",
        noticeVersion: 4,
        source: "anonymous",
      }),
    ),
    auditCase(
      "source-linked",
      "source `linked` (anonymous consent linked to a principal).",
      ["source-linked"],
      auditInput({ givenAt: 1700000002500, source: "linked" }),
    ),
    auditCase(
      "source-null",
      "source null is written as the four letters `null`.",
      ["source-null"],
      auditInput({ source: null }),
    ),
    auditCase(
      "source-missing",
      "A missing source is written as `null` too: same string and hash as source-null.",
      ["source-missing"],
      withoutSource,
    ),
    auditCase(
      "data-types-empty",
      "An empty list gives an empty segment: two separators in a row.",
      ["data-types-empty"],
      auditInput({ dataTypes: [] }),
    ),
    auditCase(
      "data-types-single",
      "One data type: no comma.",
      ["data-types-single"],
      auditInput({ dataTypes: ["email"] }),
    ),
    auditCase(
      "data-types-duplicates-kept",
      "Duplicates are kept, not removed.",
      ["data-types-duplicates"],
      auditInput({ dataTypes: ["phone", "email", "email"] }),
    ),
    auditCase(
      "data-types-unsorted",
      "Data types are sorted before joining; the input order does not matter.",
      ["data-types-sorting"],
      auditInput({ dataTypes: ["phone", "email", "address"] }),
    ),
    auditCase(
      "data-types-uppercase-first",
      "UTF-16 code-unit order: every uppercase ASCII letter sorts before every lowercase one.",
      ["data-types-sorting", "case-sensitive"],
      auditInput({ dataTypes: ["email", "Phone", "aadhaar", "Email"] }),
    ),
    auditCase(
      "data-types-numeric-strings",
      'Strings, not numbers: "10" sorts before "9", and a prefix sorts before its extensions.',
      ["data-types-sorting"],
      auditInput({ dataTypes: ["9", "100", "10", "2"] }),
    ),
    auditCase(
      "data-types-utf16-order",
      "U+1F600 is the surrogate pair D83D DE00, which sorts before U+FF61 in UTF-16 code units although " +
        "its code point is larger. Code-point or UTF-8 byte order (Python's default, Go's) gives " +
        '"\uFF61,\u{1F600}" and the wrong hash; sort by UTF-16 code units.',
      ["data-types-sorting", "utf16-order-differs-from-code-point-order", "non-ascii"],
      auditInput({ dataTypes: ["\uFF61", "\u{1F600}"] }),
    ),
    auditCase(
      "data-types-non-ascii-sorting",
      "Latin-1 and Devanagari data types sort after ASCII.",
      ["data-types-sorting", "non-ascii"],
      auditInput({ dataTypes: ["मोबाइल", "é", "ईमेल", "z", "E"] }),
    ),
    auditCase(
      "purpose-devanagari",
      "A Devanagari purpose (marketing): the message is its UTF-8 bytes.",
      ["non-ascii"],
      auditInput({ purpose: "विपणन" }),
    ),
    auditCase(
      "purpose-nfc",
      "No Unicode normalisation: precomposed U+00E9 here ...",
      ["non-ascii", "no-normalisation"],
      auditInput({ purpose: "caf\u00e9" }),
    ),
    auditCase(
      "purpose-nfd",
      "... and e + U+0301 here give different strings and hashes.",
      ["non-ascii", "no-normalisation"],
      auditInput({ purpose: "cafe\u0301" }),
    ),
    auditCase(
      "purpose-surrounding-spaces",
      "No trimming: the spaces are part of the purpose.",
      ["no-trimming"],
      auditInput({ purpose: " Marketing " }),
    ),
    auditCase(
      "given-at-year-9999",
      "A large givenAt (9999-12-31T23:59:59.999Z) is plain decimal digits, never exponent form.",
      ["large-integer"],
      auditInput({ givenAt: 253402300799999 }),
    ),
    auditCase(
      "integers-max-safe",
      "The largest accepted integers (2^53 - 1).",
      ["large-integer"],
      auditInput({ noticeVersion: Number.MAX_SAFE_INTEGER, givenAt: Number.MAX_SAFE_INTEGER }),
    ),
    auditCase(
      "integers-zero",
      "Zero is allowed for both integers.",
      ["zero"],
      auditInput({ noticeVersion: 0, givenAt: 0 }),
    ),
    auditCase(
      "secret-non-ascii",
      "The key is the UTF-8 bytes of the secret, here with non-ASCII characters.",
      ["secret-utf8", "non-ascii"],
      CONTRACT_EXAMPLE,
      "सुरक्षा-कुंजी-ü",
    ),
    refusedAuditCase(
      "refused-pipe-in-purpose",
      'Refused: "|" in a field. Fields are not framed, so a separator inside one lets two inputs share a ' +
        'string (organizationId "a|b" + noticeId "c" versus organizationId "a" + noticeId "b|c").',
      ["separator-in-field"],
      auditInput({ purpose: "Marketing|Sales" }),
    ),
    refusedAuditCase(
      "refused-pipe-in-organization-id",
      'Refused: "|" in organizationId.',
      ["separator-in-field"],
      auditInput({ organizationId: "org|abc" }),
    ),
    refusedAuditCase(
      "refused-pipe-in-notice-id",
      'Refused: "|" in noticeId.',
      ["separator-in-field"],
      auditInput({ noticeId: "notice|v1" }),
    ),
    refusedAuditCase(
      "refused-comma-in-data-type",
      'Refused: "," in a data type. ["email,phone"] would share its canonical string with ["email", "phone"] ' +
        "(the contract-example case).",
      ["separator-in-field"],
      auditInput({ dataTypes: ["email,phone"] }),
    ),
    refusedAuditCase(
      "refused-pipe-in-data-type",
      'Refused: "|" in a data type; the field path names the element.',
      ["separator-in-field"],
      auditInput({ dataTypes: ["email", "phone|sms"] }),
    ),
    refusedAuditCase(
      "refused-empty-data-type",
      'Refused: an empty data type. [""] would share its canonical string with [] (data-types-empty).',
      ["empty-data-type"],
      auditInput({ dataTypes: [""] }),
    ),
    refusedAuditCase(
      "refused-unknown-source",
      "Refused: a source outside brokered, direct, anonymous, linked (offline_ivr is not in the union).",
      ["source-unknown"],
      auditInput({ source: "offline_ivr" as AuditHashInput["source"] }),
    ),
    refusedAuditCase(
      "refused-pipe-in-source",
      'Refused: "|" in source (also outside the union).',
      ["separator-in-field", "source-unknown"],
      auditInput({ source: "brokered|direct" as AuditHashInput["source"] }),
    ),
    refusedAuditCase(
      "refused-negative-notice-version",
      "Refused: a negative noticeVersion.",
      ["bad-integer"],
      auditInput({ noticeVersion: -1 }),
    ),
    refusedAuditCase(
      "refused-fractional-given-at",
      "Refused: a fractional givenAt.",
      ["bad-integer"],
      auditInput({ givenAt: 1700000001000.5 }),
    ),
    refusedAuditCase(
      "refused-unsafe-given-at",
      "Refused: givenAt above 2^53 - 1, where neighbouring integers share one double.",
      ["bad-integer", "large-integer"],
      auditInput({ givenAt: 2 ** 53 }),
    ),
    refusedAuditCase(
      "refused-lone-surrogate",
      "Refused: an unpaired surrogate has no UTF-8 encoding (encoders write U+FFFD, colliding with it).",
      ["lone-surrogate", "non-ascii"],
      auditInput({ purpose: "Marketing\uD800" }),
    ),
    refusedAuditCase(
      "refused-several-fields",
      "Every problem is reported, in field order.",
      ["separator-in-field", "bad-integer"],
      auditInput({ noticeId: "a|b", dataTypes: ["x", "y,z"], givenAt: -5 }),
    ),
  ];
  return vectorFile(
    {
      algorithm:
        "guard-audit-hash/1: HMAC-SHA256 over organizationId|noticeId|noticeVersion|purpose|dataTypes|givenAt|source",
      description:
        "Golden vectors for the consent audit hash (spec: contract/specs/audit-hash.md). For every case, " +
        "canonicalize(input) must equal `canonical`. For result `valid`: validation finds no problem, the UTF-8 " +
        "bytes of `canonical` are `canonicalUtf8Hex`, and HMAC-SHA256 keyed with `secret` (default `testSecret`) " +
        "is `expected`. For result `invalid`: validation must report exactly `invalidFields`, in order; the server " +
        "refuses the input, so no hash is given.",
      testSecret: AUDIT_TEST_SECRET,
    },
    cases,
  );
}

// ---------------------------------------------------------------------------------------------------
// Webhook signatures
// ---------------------------------------------------------------------------------------------------

/** `whsec_` + base64 of the bytes 0x00..0x1f: the format of a Guard endpoint secret, deliberately fake. */
export const WEBHOOK_TEST_SECRET =
  "whsec_" + Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString("base64");
/** Another endpoint's secret (bytes 0x20..0x3f), for wrong-secret and key-rotation cases. */
const WEBHOOK_OTHER_SECRET =
  "whsec_" + Buffer.from(Array.from({ length: 32 }, (_, i) => 32 + i)).toString("base64");

const EVENT_ID = "evt_01HZX3K8Q2M4";
const EVENT_BODY = JSON.stringify({
  eventId: EVENT_ID,
  eventType: "consent.given",
  organizationId: "org_abc123",
  payload: { consentId: "cns_7f3a", purpose: "विपणन", dataTypes: ["email", "phone"] },
  timestamp: 1700000001000,
});
const SENT_AT = 1700000001;

function dpdpCase(
  id: string,
  comment: string,
  flags: string[],
  input: { body: string; header: string | null; secret?: string },
  result: "valid" | "invalid",
): VectorCase {
  const secret = input.secret ?? WEBHOOK_TEST_SECRET;
  return {
    id,
    comment,
    flags,
    scheme: "x-dpdp-signature",
    input: json(input),
    ...(result === "valid" ? { expectedSignature: signDpdpSignature(secret, input.body) } : {}),
    result,
  };
}

type Reason =
  | "missing_header"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "no_matching_signature";

interface StandardCaseInput {
  headers: { "webhook-id"?: string; "webhook-timestamp"?: string; "webhook-signature"?: string };
  body: string;
  secret?: string;
  nowSeconds: number;
  toleranceSeconds?: number;
}

function standardCase(
  id: string,
  comment: string,
  flags: string[],
  input: StandardCaseInput,
  outcome: { ok: true } | { ok: false; reason: Reason },
): VectorCase {
  const { "webhook-id": messageId, "webhook-timestamp": timestamp } = input.headers;
  const secret = input.secret ?? WEBHOOK_TEST_SECRET;
  // What signStandardWebhook must produce for this id, timestamp and body (when the timestamp is the
  // plain decimal form a signer writes).
  const signable = messageId !== undefined && timestamp !== undefined && /^(0|[1-9][0-9]*)$/.test(timestamp);
  return {
    id,
    comment,
    flags,
    scheme: "standard-webhooks",
    input: json(input),
    ...(messageId !== undefined && timestamp !== undefined && /^[0-9]+$/.test(timestamp)
      ? { signedContent: `${messageId}.${timestamp}.${input.body}` }
      : {}),
    ...(signable
      ? {
          expectedSignature: signStandardWebhook({
            id: messageId,
            timestamp: Number(timestamp),
            body: input.body,
            secret,
          }),
        }
      : {}),
    result: outcome.ok ? "valid" : "invalid",
    ...(outcome.ok ? {} : { reason: outcome.reason }),
  };
}

/** A `v1,<base64>` entry over an arbitrary signed timestamp text (the signer API only takes integers). */
function v1Entry(secret: string, messageId: string, timestamp: string, body: string): string {
  const hmac = createHmac("sha256", standardWebhookKey(secret)).update(
    `${messageId}.${timestamp}.${body}`,
    "utf8",
  );
  return `v1,${hmac.digest("base64")}`;
}

export function buildWebhookSignatureVectors(): JsonObject {
  const hex = signDpdpSignature(WEBHOOK_TEST_SECRET, EVENT_BODY);
  const ts = String(SENT_AT);
  const good = signStandardWebhook({
    id: EVENT_ID,
    timestamp: SENT_AT,
    body: EVENT_BODY,
    secret: WEBHOOK_TEST_SECRET,
  });
  const goodBase64 = good.slice("v1,".length);
  const otherSigned = signStandardWebhook({
    id: EVENT_ID,
    timestamp: SENT_AT,
    body: EVENT_BODY,
    secret: WEBHOOK_OTHER_SECRET,
  });
  const headers = (signature: string, overrides: Partial<StandardCaseInput["headers"]> = {}) => ({
    "webhook-id": EVENT_ID,
    "webhook-timestamp": ts,
    "webhook-signature": signature,
    ...overrides,
  });
  const at = (nowSeconds: number) => ({ body: EVENT_BODY, nowSeconds });
  const withoutHeader = (name: keyof StandardCaseInput["headers"]) => {
    const all: StandardCaseInput["headers"] = headers(good);
    delete all[name];
    return all;
  };
  const ok = { ok: true } as const;
  const fail = (reason: Reason) => ({ ok: false, reason }) as const;

  const cases: VectorCase[] = [
    dpdpCase(
      "dpdp-valid",
      "Lowercase hex, as Guard sends it.",
      ["valid"],
      { body: EVENT_BODY, header: hex },
      "valid",
    ),
    dpdpCase(
      "dpdp-valid-uppercase",
      "Hex digits are case-insensitive.",
      ["case-insensitive"],
      { body: EVENT_BODY, header: hex.toUpperCase() },
      "valid",
    ),
    dpdpCase(
      "dpdp-valid-surrounding-whitespace",
      "Surrounding ASCII whitespace (space, tab, CR, LF, FF) is ignored.",
      ["whitespace"],
      { body: EVENT_BODY, header: ` \t${hex}\r\n` },
      "valid",
    ),
    dpdpCase(
      "dpdp-valid-empty-body",
      "An empty body is signed like any other.",
      ["empty-body"],
      { body: "", header: signDpdpSignature(WEBHOOK_TEST_SECRET, "") },
      "valid",
    ),
    dpdpCase(
      "dpdp-wrong-secret",
      "Signed with another endpoint's secret.",
      ["wrong-secret"],
      { body: EVENT_BODY, header: signDpdpSignature(WEBHOOK_OTHER_SECRET, EVENT_BODY) },
      "invalid",
    ),
    dpdpCase(
      "dpdp-key-is-whole-secret-string",
      "Keyed with the base64-decoded bytes instead of the whole `whsec_...` string as UTF-8: wrong key.",
      ["secret-mapping"],
      {
        body: EVENT_BODY,
        header: createHmac("sha256", standardWebhookKey(WEBHOOK_TEST_SECRET))
          .update(EVENT_BODY)
          .digest("hex"),
      },
      "invalid",
    ),
    dpdpCase(
      "dpdp-tampered-body",
      "The body changed after signing (one character).",
      ["tampered"],
      { body: EVENT_BODY.replace("consent.given", "consent.giveN"), header: hex },
      "invalid",
    ),
    dpdpCase(
      "dpdp-reserialised-body",
      "The JSON was parsed and re-serialised with other spacing: verify the raw bytes, never a re-serialisation.",
      ["tampered"],
      { body: JSON.stringify(JSON.parse(EVENT_BODY), null, 1), header: hex },
      "invalid",
    ),
    dpdpCase(
      "dpdp-sha256-prefix",
      'A "sha256=" scheme prefix is not part of this header.',
      ["prefix"],
      { body: EVENT_BODY, header: `sha256=${hex}` },
      "invalid",
    ),
    dpdpCase(
      "dpdp-truncated-odd",
      "63 hex digits.",
      ["truncated"],
      { body: EVENT_BODY, header: hex.slice(0, 63) },
      "invalid",
    ),
    dpdpCase(
      "dpdp-truncated-even",
      "62 hex digits (31 bytes).",
      ["truncated"],
      { body: EVENT_BODY, header: hex.slice(0, 62) },
      "invalid",
    ),
    dpdpCase(
      "dpdp-trailing-garbage",
      "Valid digest followed by non-hex characters. Contract 1.6.0's verifier ignored these; Guard's does not.",
      ["trailing-garbage"],
      { body: EVENT_BODY, header: `${hex}zz` },
      "invalid",
    ),
    dpdpCase(
      "dpdp-trailing-hex",
      "Valid digest followed by one more byte of hex (66 digits).",
      ["trailing-garbage"],
      { body: EVENT_BODY, header: `${hex}00` },
      "invalid",
    ),
    dpdpCase(
      "dpdp-inner-space",
      "Whitespace inside the digest.",
      ["whitespace"],
      { body: EVENT_BODY, header: `${hex.slice(0, 32)} ${hex.slice(32)}` },
      "invalid",
    ),
    dpdpCase(
      "dpdp-non-ascii-whitespace",
      "A surrounding NO-BREAK SPACE (U+00A0) is not ASCII whitespace and is not trimmed.",
      ["whitespace"],
      { body: EVENT_BODY, header: `\u00a0${hex}` },
      "invalid",
    ),
    dpdpCase(
      "dpdp-empty-header",
      "An empty header.",
      ["missing"],
      { body: EVENT_BODY, header: "" },
      "invalid",
    ),
    dpdpCase(
      "dpdp-missing-header",
      "No header (null).",
      ["missing"],
      { body: EVENT_BODY, header: null },
      "invalid",
    ),

    standardCase(
      "sw-interop-reference",
      "Known answer of the Standard Webhooks reference libraries' sign test (secret of 24 bytes).",
      ["interop"],
      {
        headers: {
          "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
          "webhook-timestamp": "1614265330",
          "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        },
        body: '{"test": 2432232314}',
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        nowSeconds: 1614265330,
      },
      ok,
    ),
    standardCase(
      "sw-valid",
      "One signature, sent just now.",
      ["valid"],
      { headers: headers(good), ...at(SENT_AT) },
      ok,
    ),
    standardCase(
      "sw-secret-without-prefix",
      "A secret given as bare base64 (no whsec_) names the same key, as in the reference libraries.",
      ["secret-format"],
      { headers: headers(good), ...at(SENT_AT), secret: WEBHOOK_TEST_SECRET.slice("whsec_".length) },
      ok,
    ),
    standardCase(
      "sw-multiple-one-valid",
      "Several space-separated entries (key rotation): one matching v1 entry is enough. The v2 entry with the " +
        "right digest is ignored because only v1 is understood.",
      ["multiple-signatures"],
      {
        headers: headers(
          `v1,${otherSigned.slice(3)} v2,${goodBase64} v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= ${good}`,
        ),
        ...at(SENT_AT),
      },
      ok,
    ),
    standardCase(
      "sw-rotation-new-secret-first",
      "During rotation the sender signs with both secrets; a receiver holding either one accepts.",
      ["multiple-signatures", "rotation"],
      { headers: headers(`${good} ${otherSigned}`), ...at(SENT_AT), secret: WEBHOOK_OTHER_SECRET },
      ok,
    ),
    standardCase(
      "sw-extra-spaces",
      "Leading, trailing and doubled spaces leave empty entries, which are skipped.",
      ["whitespace", "multiple-signatures"],
      { headers: headers(`  v1,AAAA  ${good} `), ...at(SENT_AT) },
      ok,
    ),
    standardCase(
      "sw-tab-is-not-a-separator",
      "Only the space character separates entries: with a tab the valid entry is glued to the one before.",
      ["whitespace", "multiple-signatures"],
      { headers: headers(`v1,AAAA\t${good}`), ...at(SENT_AT) },
      fail("no_matching_signature"),
    ),
    standardCase(
      "sw-wrong-secret",
      "Signed with another endpoint's secret.",
      ["wrong-secret"],
      { headers: headers(otherSigned), ...at(SENT_AT) },
      fail("no_matching_signature"),
    ),
    standardCase(
      "sw-tampered-body",
      "The body changed after signing.",
      ["tampered"],
      {
        headers: headers(good),
        body: EVENT_BODY.replace("consent.given", "consent.giveN"),
        nowSeconds: SENT_AT,
      },
      fail("no_matching_signature"),
    ),
    standardCase(
      "sw-tampered-id",
      "The webhook-id is signed: replaying the body under a new id fails.",
      ["tampered"],
      { headers: headers(good, { "webhook-id": "evt_01HZX3K8Q2M5" }), ...at(SENT_AT) },
      fail("no_matching_signature"),
    ),
    standardCase(
      "sw-tampered-timestamp",
      "The timestamp is signed: moving it forward (to dodge the window) fails.",
      ["tampered"],
      { headers: headers(good, { "webhook-timestamp": String(SENT_AT + 60) }), ...at(SENT_AT + 60) },
      fail("no_matching_signature"),
    ),
    standardCase(
      "sw-unpadded-base64",
      "The entry is compared as text with the padded standard base64 digest: dropping the '=' fails.",
      ["encoding"],
      { headers: headers(good.replace(/=+$/, "")), ...at(SENT_AT) },
      fail("no_matching_signature"),
    ),
    standardCase(
      "sw-hex-digest",
      "A hex digest in a v1 entry is not the base64 digest.",
      ["encoding"],
      { headers: headers(`v1,${Buffer.from(goodBase64, "base64").toString("hex")}`), ...at(SENT_AT) },
      fail("no_matching_signature"),
    ),
    standardCase(
      "sw-unknown-version-only",
      "Only v1 entries are considered; v1a (asymmetric) and unversioned entries are skipped.",
      ["version"],
      { headers: headers(`v1a,${goodBase64} ${goodBase64}`), ...at(SENT_AT) },
      fail("no_matching_signature"),
    ),
    standardCase(
      "sw-received-timestamp-signed",
      "A timestamp with a leading zero is accepted, and the signed string uses the header text as received " +
        "(`...01700000001...`), not the re-formatted number.",
      ["timestamp-text"],
      {
        headers: headers(v1Entry(WEBHOOK_TEST_SECRET, EVENT_ID, `0${ts}`, EVENT_BODY), {
          "webhook-timestamp": `0${ts}`,
        }),
        ...at(SENT_AT),
      },
      ok,
    ),
    standardCase(
      "sw-reparsed-timestamp-not-signed",
      "The same header, but signed over the re-formatted number (what a verifier that re-formats computes).",
      ["timestamp-text"],
      { headers: headers(good, { "webhook-timestamp": `0${ts}` }), ...at(SENT_AT) },
      fail("no_matching_signature"),
    ),
    standardCase(
      "sw-too-old",
      "301 seconds old with the default 300-second tolerance.",
      ["replay-window"],
      { headers: headers(good), ...at(SENT_AT + 301) },
      fail("timestamp_too_old"),
    ),
    standardCase(
      "sw-old-boundary",
      "Exactly 300 seconds old: still inside the window.",
      ["replay-window", "boundary"],
      { headers: headers(good), ...at(SENT_AT + 300) },
      ok,
    ),
    standardCase(
      "sw-too-new",
      "301 seconds in the future.",
      ["replay-window"],
      { headers: headers(good), ...at(SENT_AT - 301) },
      fail("timestamp_too_new"),
    ),
    standardCase(
      "sw-new-boundary",
      "Exactly 300 seconds in the future: still inside the window.",
      ["replay-window", "boundary"],
      { headers: headers(good), ...at(SENT_AT - 300) },
      ok,
    ),
    standardCase(
      "sw-custom-tolerance",
      "A receiver-chosen tolerance of 60 seconds.",
      ["replay-window"],
      { headers: headers(good), ...at(SENT_AT + 61), toleranceSeconds: 60 },
      fail("timestamp_too_old"),
    ),
    standardCase(
      "sw-window-checked-before-signature",
      "Too old and also wrongly signed: the window is checked first.",
      ["replay-window", "check-order"],
      { headers: headers(otherSigned), ...at(SENT_AT + 1000) },
      fail("timestamp_too_old"),
    ),
    standardCase(
      "sw-missing-id",
      "No webhook-id.",
      ["missing"],
      { headers: withoutHeader("webhook-id"), ...at(SENT_AT) },
      fail("missing_header"),
    ),
    standardCase(
      "sw-missing-timestamp",
      "No webhook-timestamp.",
      ["missing"],
      { headers: withoutHeader("webhook-timestamp"), ...at(SENT_AT) },
      fail("missing_header"),
    ),
    standardCase(
      "sw-missing-signature",
      "No webhook-signature.",
      ["missing"],
      { headers: withoutHeader("webhook-signature"), ...at(SENT_AT) },
      fail("missing_header"),
    ),
    standardCase(
      "sw-empty-signature",
      "An empty header counts as missing.",
      ["missing"],
      { headers: headers(""), ...at(SENT_AT) },
      fail("missing_header"),
    ),
    standardCase(
      "sw-timestamp-not-a-number",
      "A non-numeric timestamp.",
      ["timestamp-format"],
      { headers: headers(good, { "webhook-timestamp": "yesterday" }), ...at(SENT_AT) },
      fail("invalid_timestamp"),
    ),
    standardCase(
      "sw-timestamp-trailing-text",
      "Digits followed by text (a parseInt-style reader would accept it).",
      ["timestamp-format"],
      { headers: headers(good, { "webhook-timestamp": `${ts}abc` }), ...at(SENT_AT) },
      fail("invalid_timestamp"),
    ),
    standardCase(
      "sw-timestamp-fractional",
      "Seconds with a fraction.",
      ["timestamp-format"],
      { headers: headers(good, { "webhook-timestamp": `${ts}.5` }), ...at(SENT_AT) },
      fail("invalid_timestamp"),
    ),
    standardCase(
      "sw-timestamp-exponent-form",
      "Exponent notation.",
      ["timestamp-format"],
      { headers: headers(good, { "webhook-timestamp": "1.700000001e9" }), ...at(SENT_AT) },
      fail("invalid_timestamp"),
    ),
    standardCase(
      "sw-timestamp-negative",
      "A sign is not a digit.",
      ["timestamp-format"],
      { headers: headers(good, { "webhook-timestamp": "-1" }), ...at(SENT_AT) },
      fail("invalid_timestamp"),
    ),
    standardCase(
      "sw-timestamp-padded",
      "Surrounding whitespace is not trimmed from the timestamp.",
      ["timestamp-format", "whitespace"],
      { headers: headers(good, { "webhook-timestamp": ` ${ts}` }), ...at(SENT_AT) },
      fail("invalid_timestamp"),
    ),
  ];
  return vectorFile(
    {
      algorithm:
        "X-DPDP-Signature: hex HMAC-SHA256(body); Standard Webhooks v1: base64 HMAC-SHA256(id.timestamp.body)",
      description:
        "Golden vectors for webhook signatures (spec: contract/specs/webhooks.md). `secret` defaults to " +
        "`testSecret`. Bodies are the UTF-8 bytes of `body`. scheme x-dpdp-signature: verify(secret, body, " +
        "header) must give `result`; where `expectedSignature` is present, sign(secret, body) must equal it. " +
        "scheme standard-webhooks: verify(headers, body, secret, toleranceSeconds (default 300), nowSeconds) " +
        "must give `result` and, when invalid, `reason`; `signedContent` is the HMAC message; where " +
        "`expectedSignature` is present, sign(webhook-id, webhook-timestamp, body, secret) must equal it.",
      testSecret: WEBHOOK_TEST_SECRET,
    },
    cases,
  );
}

// ---------------------------------------------------------------------------------------------------
// Capture artefact (dpdpcca/2)
// ---------------------------------------------------------------------------------------------------

interface StoredKey {
  privateKeyPkcs8Base64?: string;
  publicKeySpkiBase64: string;
}
type TestKeys = Record<"device" | "otherDevice" | "secp256k1" | "malformed", StoredKey>;

/** A truncated P-256 SPKI: the right prefix, no key. */
const MALFORMED_SPKI = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE";

function newKey(curve: "prime256v1" | "secp256k1"): StoredKey {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: curve });
  return {
    privateKeyPkcs8Base64: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
    publicKeySpkiBase64: publicKey.export({ format: "der", type: "spki" }).toString("base64"),
  };
}

function privateKeyOf(stored: StoredKey): KeyObject {
  if (stored.privateKeyPkcs8Base64 === undefined) throw new Error("no private key stored");
  return createPrivateKey({
    key: Buffer.from(stored.privateKeyPkcs8Base64, "base64"),
    format: "der",
    type: "pkcs8",
  });
}

function rawVerify(stored: StoredKey, canonical: string, signatureBase64: string): boolean {
  const key = createPublicKey({
    key: Buffer.from(stored.publicKeySpkiBase64, "base64"),
    format: "der",
    type: "spki",
  });
  const signature = Buffer.from(signatureBase64, "base64");
  return verify("sha256", Buffer.from(canonical, "utf8"), { key, dsaEncoding: "ieee-p1363" }, signature);
}

const P256_ORDER = BigInt("0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");

/** (r, n - s): the other valid signature of the same message. */
function otherS(signatureBase64: string): string {
  const raw = Buffer.from(signatureBase64, "base64");
  const s = BigInt("0x" + raw.subarray(32).toString("hex"));
  const flipped = Buffer.from((P256_ORDER - s).toString(16).padStart(64, "0"), "hex");
  return Buffer.concat([raw.subarray(0, 32), flipped]).toString("base64");
}

/** The same signature as ASN.1 DER `SEQUENCE { INTEGER r, INTEGER s }`. */
function toDer(signatureBase64: string): string {
  const raw = Buffer.from(signatureBase64, "base64");
  const integer = (bytes: Buffer): Buffer => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
    let body = bytes.subarray(start);
    if ((body[0] ?? 0) & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
    return Buffer.concat([Buffer.from([0x02, body.length]), body]);
  };
  const content = Buffer.concat([integer(raw.subarray(0, 32)), integer(raw.subarray(32))]);
  return Buffer.concat([Buffer.from([0x30, content.length]), content]).toString("base64");
}

type Session = CaptureArtifactSession & Record<string, unknown>;

const BASE_SESSION: Session = {
  clientSessionId: "6f1c2f9e-8b1a-4c3d-9e2f-1a2b3c4d5e6f",
  organizationId: "org_abc123",
  deviceId: "dev_7Qm2",
  noticeId: "ntc_4p9x",
  noticeVersion: 3,
  noticeLocale: "en-IN",
  purposeGrants: [
    {
      purposeKey: "service_delivery",
      purposeLabel: "Service delivery",
      category: "essential",
      status: "opt_in",
    },
    { purposeKey: "marketing", purposeLabel: "Marketing", category: "non_essential", status: "opt_out" },
    { purposeKey: "analytics", purposeLabel: "Analytics", category: "non_essential", status: "opt_in" },
  ],
  dataTypes: ["phone", "name", "email"],
  principalHandle: { kind: "phone_hash", value: "+919876543210" },
  capturedAtClient: 1700000000000,
  channel: "agent_app",
};

function session(changes: Record<string, unknown>): Session {
  return { ...BASE_SESSION, ...changes } as Session;
}

export function buildCaptureArtifactVectors(
  existing?: unknown,
  options: { force?: boolean } = {},
): JsonObject {
  const previous = !options.force && isRecord(existing) ? existing : undefined;
  const previousKeys = previous?.testKeys as TestKeys | undefined;
  const keys: TestKeys = previousKeys ?? {
    device: newKey("prime256v1"),
    otherDevice: newKey("prime256v1"),
    secp256k1: newKey("secp256k1"),
    malformed: { publicKeySpkiBase64: MALFORMED_SPKI },
  };
  const previousCases = new Map<string, Record<string, unknown>>();
  if (Array.isArray(previous?.cases)) {
    for (const c of previous.cases as unknown[]) if (isRecord(c)) previousCases.set(String(c.id), c);
  }
  /** The stored signature of this case if it still verifies over `canonical`, else a fresh one. */
  const signatureFor = (id: string, keyName: "device" | "secp256k1", canonical: string): string => {
    const stored = previousCases.get(id)?.input;
    const signature = isRecord(stored) ? stored.signature : undefined;
    if (typeof signature === "string" && rawVerify(keys[keyName], canonical, signature)) return signature;
    return sign("sha256", Buffer.from(canonical, "utf8"), {
      key: privateKeyOf(keys[keyName]),
      dsaEncoding: "ieee-p1363",
    }).toString("base64");
  };

  const signed = (id: string, comment: string, flags: string[], input: Session): VectorCase => {
    const canonical = canonicalizeCaptureArtifact(input);
    return {
      id,
      comment,
      flags,
      input: json({ session: input, publicKey: "device", signature: signatureFor(id, "device", canonical) }),
      canonical,
      canonicalUtf8Hex: utf8Hex(canonical),
      result: "valid",
    };
  };
  const refused = (id: string, comment: string, flags: string[], input: Session): VectorCase => {
    try {
      canonicalizeCaptureArtifact(input);
    } catch (error) {
      if (!(error instanceof CaptureArtifactError)) throw error;
      const { code, field } = error;
      return {
        id,
        comment,
        flags,
        input: json({ session: input }),
        result: "invalid",
        error: { code, field },
      };
    }
    throw new Error(`${id}: expected canonicalisation to fail`);
  };
  /** A signature case over `input` with a given key and signature; canonical is recorded. */
  const checked = (
    id: string,
    comment: string,
    flags: string[],
    input: Session,
    publicKey: keyof TestKeys,
    signature: string,
    result: "valid" | "invalid",
  ): VectorCase => {
    const canonical = canonicalizeCaptureArtifact(input);
    return {
      id,
      comment,
      flags,
      input: json({ session: input, publicKey, signature }),
      canonical,
      canonicalUtf8Hex: utf8Hex(canonical),
      result,
    };
  };

  const basic = signed(
    "basic",
    "Three grants given out of order, sorted by purposeKey; dataTypes sorted; a phone handle signed raw.",
    ["grant-sorting", "principal-handle"],
    BASE_SESSION,
  );
  const basicSignature = (basic.input as { signature: string }).signature;

  const cases: VectorCase[] = [
    basic,
    signed(
      "unsigned-fields-ignored",
      "purposeLabel, category, linkId and deviceSignature are not signed: same canonical string as `basic`.",
      ["unsigned-fields"],
      session({
        purposeGrants: BASE_SESSION.purposeGrants.map((grant) => ({
          ...grant,
          purposeLabel: "(relabelled)",
        })),
        linkId: "lnk_2b7d",
        deviceSignature: "(ignored)",
      }),
    ),
    signed(
      "multibyte-devanagari",
      "Hindi locale, purposeKeys and dataTypes: each length is in UTF-8 bytes (3 per Devanagari letter), " +
        "not characters. The locale is opaque text to the canonical form.",
      ["non-ascii", "byte-length", "grant-sorting"],
      session({
        noticeLocale: "हिन्दी",
        purposeGrants: [
          { purposeKey: "विपणन", purposeLabel: "विपणन", category: "non_essential", status: "opt_out" },
          { purposeKey: "सेवा", purposeLabel: "सेवा", category: "essential", status: "opt_in" },
          { purposeKey: "विश्लेषण", purposeLabel: "विश्लेषण", category: "non_essential", status: "opt_in" },
        ],
        dataTypes: ["मोबाइल", "नाम", "ईमेल"],
        principalHandle: { kind: "uhid", value: "UHID-12-3456-7890" },
        channel: "qr",
      }),
    ),
    signed(
      "utf8-order-differs-from-utf16",
      "UTF-8 byte order puts U+FF61 (EF BD A1) before U+1F600 (F0 9F 98 80); JavaScript's default sort " +
        "(UTF-16 code units) would put U+1F600 (D83D ...) first. Unlike the audit hash, sort by bytes here.",
      ["non-ascii", "utf8-order-differs-from-utf16-order", "grant-sorting"],
      session({
        purposeGrants: [
          {
            purposeKey: "\u{1F600}offers",
            purposeLabel: "Offers",
            category: "non_essential",
            status: "opt_in",
          },
          { purposeKey: "\uFF61notices", purposeLabel: "Notices", category: "essential", status: "opt_in" },
          { purposeKey: "zeta", purposeLabel: "Zeta", category: "non_essential", status: "opt_out" },
        ],
        dataTypes: ["\u{1F600}", "\uFF61", "a", "Z"],
      }),
    ),
    signed(
      "sorting-ascii-and-duplicates",
      'Byte order: uppercase before lowercase, "10" before "9", a prefix before its extensions. Duplicate ' +
        "dataTypes are kept (only purposeKeys must be unique).",
      ["grant-sorting", "duplicates"],
      session({
        purposeGrants: ["b", "B", "ab", "a", "a_b", "9", "10"].map((purposeKey, index) => ({
          purposeKey,
          purposeLabel: purposeKey,
          category: "non_essential",
          status: index % 2 === 0 ? "opt_in" : "opt_out",
        })),
        dataTypes: ["email", "Email", "email"],
        channel: "async_link",
      }),
    ),
    signed(
      "no-principal-handle",
      "No principalHandle: kind `none`, value the four letters `null`.",
      ["principal-handle-absent"],
      (() => {
        const { principalHandle: _absent, ...rest } = session({ channel: "pos" });
        return rest as Session;
      })(),
    ),
    signed(
      "null-principal-handle",
      "principalHandle null is the same as absent.",
      ["principal-handle-absent"],
      session({ principalHandle: null, channel: "pos" }),
    ),
    signed(
      "separators-inside-values",
      'Values holding "|" and ":" need no escaping: the byte-length prefix frames every token.',
      ["framing"],
      session({
        clientSessionId: "9b2e|4:x",
        deviceId: "dev|7:Qm",
        principalHandle: { kind: "cbs_ref", value: "CBS|0042:7" },
        channel: "ivr",
      }),
    ),
    signed(
      "normalisation-distinct-keys",
      "Precomposed U+00E9 and e + U+0301 are different purposeKeys (no normalisation, so no duplicate), " +
        "ordered by their bytes (65 CC 81 < C3 A9).",
      ["non-ascii", "no-normalisation", "grant-sorting"],
      session({
        purposeGrants: [
          { purposeKey: "caf\u00e9", purposeLabel: "Café", category: "non_essential", status: "opt_in" },
          { purposeKey: "cafe\u0301", purposeLabel: "Café", category: "non_essential", status: "opt_out" },
        ],
      }),
    ),
    signed(
      "large-integers",
      "The largest safe integers, in plain decimal.",
      ["large-integer"],
      session({ noticeVersion: Number.MAX_SAFE_INTEGER, capturedAtClient: 253402300799999 }),
    ),
    checked(
      "tampered-grant-status",
      "`basic` with marketing flipped to opt_in, presented with basic's signature.",
      ["tampered"],
      session({
        purposeGrants: BASE_SESSION.purposeGrants.map((grant) =>
          grant.purposeKey === "marketing" ? { ...grant, status: "opt_in" } : grant,
        ),
      }),
      "device",
      basicSignature,
      "invalid",
    ),
    checked(
      "tampered-locale",
      "`basic` with another locale: the language shown is signed evidence (DPDP s. 5(3)).",
      ["tampered"],
      session({ noticeLocale: "hi-IN" }),
      "device",
      basicSignature,
      "invalid",
    ),
    checked(
      "wrong-device-key",
      "basic's signature checked with another device's P-256 key.",
      ["wrong-key"],
      BASE_SESSION,
      "otherDevice",
      basicSignature,
      "invalid",
    ),
    checked(
      "secp256k1-key-refused",
      "A correct secp256k1 signature over basic's canonical string: also 64 bytes, but not P-256, so refused.",
      ["wrong-curve"],
      BASE_SESSION,
      "secp256k1",
      signatureFor("secp256k1-key-refused", "secp256k1", basic.canonical as string),
      "invalid",
    ),
    checked(
      "malformed-public-key",
      "A truncated SPKI: verification answers false and does not throw.",
      ["malformed-key"],
      BASE_SESSION,
      "malformed",
      basicSignature,
      "invalid",
    ),
    checked(
      "signature-other-s",
      "(r, n - s) of basic's signature is valid too: devices do not normalise S, so neither does the check.",
      ["s-malleability"],
      BASE_SESSION,
      "device",
      otherS(basicSignature),
      "valid",
    ),
    checked(
      "signature-der",
      "basic's signature DER-encoded: only raw 64-byte r||s is accepted.",
      ["encoding"],
      BASE_SESSION,
      "device",
      toDer(basicSignature),
      "invalid",
    ),
    checked(
      "signature-truncated",
      "The first 63 bytes of basic's signature.",
      ["encoding"],
      BASE_SESSION,
      "device",
      Buffer.from(basicSignature, "base64").subarray(0, 63).toString("base64"),
      "invalid",
    ),
    checked(
      "signature-unpadded-base64",
      "basic's signature without its '==' padding: only canonical padded base64 is accepted.",
      ["encoding"],
      BASE_SESSION,
      "device",
      basicSignature.replace(/=+$/, ""),
      "invalid",
    ),
    checked(
      "signature-base64url",
      "basic's signature in the URL-safe alphabet: only standard base64 is accepted.",
      ["encoding"],
      BASE_SESSION,
      "device",
      Buffer.from(basicSignature, "base64").toString("base64url") + "==",
      "invalid",
    ),
    checked(
      "signature-zero",
      "64 zero bytes (r = s = 0).",
      ["encoding"],
      BASE_SESSION,
      "device",
      Buffer.alloc(64).toString("base64"),
      "invalid",
    ),
    refused(
      "duplicate-purpose-key",
      "marketing appears twice: not an artefact. The field names the second occurrence, in input order.",
      ["duplicate-purpose-key"],
      session({
        purposeGrants: [
          ...BASE_SESSION.purposeGrants,
          {
            purposeKey: "marketing",
            purposeLabel: "Marketing",
            category: "non_essential",
            status: "opt_out",
          },
        ],
      }),
    ),
    refused(
      "duplicate-purpose-key-conflicting-status",
      "The same purposeKey opted in and out.",
      ["duplicate-purpose-key"],
      session({
        purposeGrants: [
          { purposeKey: "marketing", purposeLabel: "Marketing", category: "non_essential", status: "opt_in" },
          {
            purposeKey: "marketing",
            purposeLabel: "Marketing",
            category: "non_essential",
            status: "opt_out",
          },
        ],
      }),
    ),
    refused(
      "invalid-channel",
      "A channel outside qr, agent_app, pos, async_link, ivr.",
      ["enum"],
      session({ channel: "kiosk" }),
    ),
    refused(
      "invalid-grant-status",
      "A status outside opt_in, opt_out.",
      ["enum"],
      session({
        purposeGrants: [
          { purposeKey: "marketing", purposeLabel: "Marketing", category: "non_essential", status: "yes" },
        ],
      }),
    ),
    refused(
      "invalid-principal-handle-kind",
      "A handle kind outside phone_hash, uhid, cbs_ref, none.",
      ["enum"],
      session({ principalHandle: { kind: "email", value: "a@example.com" } }),
    ),
    refused(
      "fractional-notice-version",
      "noticeVersion must be a non-negative safe integer.",
      ["bad-integer"],
      session({ noticeVersion: 1.5 }),
    ),
    refused(
      "negative-captured-at",
      "capturedAtClient must be a non-negative safe integer.",
      ["bad-integer"],
      session({ capturedAtClient: -1 }),
    ),
    refused(
      "missing-notice-locale",
      "A signed field that is absent.",
      ["missing-field"],
      (() => {
        const { noticeLocale: _absent, ...rest } = BASE_SESSION;
        return rest as Session;
      })(),
    ),
    refused(
      "lone-surrogate",
      "An unpaired surrogate has no UTF-8 encoding.",
      ["lone-surrogate"],
      session({
        purposeGrants: [
          { purposeKey: "offers\uD83D", purposeLabel: "Offers", category: "non_essential", status: "opt_in" },
        ],
      }),
    ),
  ];
  return vectorFile(
    {
      algorithm: "dpdpcca/2, ECDSA P-256 SHA-256, signature base64 of raw r||s (IEEE P1363)",
      description:
        "Golden vectors for the offline capture artefact (spec: contract/specs/capture-artifact.md). When a case " +
        "has `canonical`: canonicalize(input.session) must equal it, its UTF-8 bytes are `canonicalUtf8Hex`, and " +
        "verifying `input.signature` over it with testKeys[input.publicKey].publicKeySpkiBase64 must give " +
        "`result`. When a case has `error`: canonicalize(input.session) must fail with `error.code` " +
        "(duplicate_purpose_key | invalid_field) at `error.field`. The keys are test keys: never enrol them.",
      testKeys: json(keys),
    },
    cases,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------------

function readExisting(name: string): unknown {
  const path = VECTORS_DIR + name;
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as unknown) : undefined;
}

/** Every vector file, keyed by file name, as the builders produce it from the current files. */
export function buildAllVectors(options: { force?: boolean } = {}): Record<string, JsonObject> {
  return {
    "audit-hash.json": buildAuditHashVectors(),
    "webhook-signature.json": buildWebhookSignatureVectors(),
    "capture-artifact.json": buildCaptureArtifactVectors(readExisting("capture-artifact.json"), options),
  };
}

async function main(args: string[]): Promise<number> {
  const unknown = args.filter((arg) => arg !== "--force" && arg !== "--check");
  if (unknown.length > 0) {
    console.error(`unknown argument(s): ${unknown.join(" ")}`);
    return 2;
  }
  const check = args.includes("--check");
  const prettier = await import("prettier");
  let stale = 0;
  for (const [name, content] of Object.entries(buildAllVectors({ force: args.includes("--force") }))) {
    const path = VECTORS_DIR + name;
    const options = (await prettier.resolveConfig(path)) ?? {};
    const text = await prettier.format(JSON.stringify(content), { ...options, filepath: path });
    const current = existsSync(path) ? readFileSync(path, "utf8") : undefined;
    if (current === text) continue;
    stale += 1;
    if (check) console.error(`${name} is out of date`);
    else {
      writeFileSync(path, text);
      console.log(`wrote ${name} (${String(content.numberOfCases)} cases)`);
    }
  }
  return check && stale > 0 ? 1 : 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
