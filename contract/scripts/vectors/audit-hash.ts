// Golden vectors of the consent audit hash (spec: contract/specs/audit-hash.md), written to
// contract/vectors/audit-hash.json. Valid cases pin the canonical string, its bytes and the HMAC;
// refused cases pin which fields validation names, in order.
import {
  canonicalizeAuditEvent,
  computeAuditHash,
  validateAuditFields,
  type AuditHashInput,
} from "../../src/canonical/audit-hash.js";
import { json, utf8Hex, vectorFile, type JsonObject, type VectorCase } from "./shared.js";

const AUDIT_TEST_SECRET = "guard-audit-hash-test-secret-v1";

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
