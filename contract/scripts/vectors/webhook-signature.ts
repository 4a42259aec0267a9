// Golden vectors of both webhook signature schemes (spec: contract/specs/webhooks.md), written to
// contract/vectors/webhook-signature.json: contract 1.6.0's `X-DPDP-Signature` (hex HMAC of the raw
// body) and Standard Webhooks (`v1,<base64>` over `id.timestamp.body`, with its replay window).
import { createHmac } from "node:crypto";
import {
  signDpdpSignature,
  signStandardWebhook,
  standardWebhookKey,
} from "../../src/canonical/webhook-signature.js";
import { json, vectorFile, type JsonObject, type VectorCase } from "./shared.js";

/** `whsec_` + base64 of the bytes 0x00..0x1f: the format of a Guard endpoint secret, deliberately fake. */
const WEBHOOK_TEST_SECRET =
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
