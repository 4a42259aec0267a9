// The consent audit hash (contract/specs/audit-hash.md), byte-identical to contract 1.6.0, so an
// integrator can recompute the hash Guard stored from their own records. Every case of
// contract/vectors/audit-hash.json runs in test/vectors.test.ts.
import { createHmac } from "node:crypto";

export type AuditSource = "brokered" | "direct" | "anonymous" | "linked";

export interface AuditHashInput {
  organizationId: string;
  noticeId: string;
  noticeVersion: number;
  purpose: string;
  dataTypes: readonly string[];
  givenAt: number;
  source?: AuditSource | null;
}

export interface AuditFieldProblem {
  /** `organizationId`, …, `dataTypes[2]`, `givenAt`, `source`. */
  field: string;
  reason: string;
}

/**
 * `organizationId|noticeId|noticeVersion|purpose|dataTypes|givenAt|source`, data types sorted by
 * UTF-16 code units (JavaScript's default sort, the contract's order) and joined with `,`. Total, as
 * in 1.6.0: call validateAuditFields first on anything you did not build yourself.
 */
export function canonicalizeAuditEvent(input: AuditHashInput): string {
  return [
    input.organizationId,
    input.noticeId,
    String(input.noticeVersion),
    input.purpose,
    [...input.dataTypes].sort().join(","),
    String(input.givenAt),
    input.source ?? "null",
  ].join("|");
}

/** Lowercase hex HMAC-SHA256 of the canonical string, keyed with the UTF-8 secret (secret first, as in verifyWebhookSignature). */
export function computeAuditHash(secret: string, input: AuditHashInput): string {
  return createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(Buffer.from(canonicalizeAuditEvent(input), "utf8"))
    .digest("hex");
}

const SOURCES: readonly (AuditSource | null | undefined)[] = [
  "brokered",
  "direct",
  "anonymous",
  "linked",
  null,
  undefined,
];
// With the `u` flag a surrogate class matches only unpaired surrogates (paired ones are one code point).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function textProblem(value: unknown, forbidden: RegExp, what: string): string | undefined {
  if (typeof value !== "string") return "must be a string";
  if (forbidden.test(value)) return `must not contain ${what}`;
  if (LONE_SURROGATE.test(value)) return "must not contain an unpaired surrogate";
  return undefined;
}

function integerProblem(value: unknown): string | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0
    ? undefined
    : "must be an integer from 0 to 2^53 - 1";
}

/**
 * The problems that would let two different inputs share a canonical string (and so a hash), in
 * field order; empty when the input is safe to hash. Mirrors what the server refuses with 400.
 */
export function validateAuditFields(input: AuditHashInput): AuditFieldProblem[] {
  const problems: AuditFieldProblem[] = [];
  const check = (field: string, reason: string | undefined) => {
    if (reason) problems.push({ field, reason });
  };
  check("organizationId", textProblem(input.organizationId, /\|/, "|"));
  check("noticeId", textProblem(input.noticeId, /\|/, "|"));
  check("noticeVersion", integerProblem(input.noticeVersion));
  check("purpose", textProblem(input.purpose, /\|/, "|"));
  if (!Array.isArray(input.dataTypes)) {
    check("dataTypes", "must be a list of strings");
  } else {
    input.dataTypes.forEach((dataType: unknown, i) => {
      check(
        `dataTypes[${i}]`,
        dataType === "" ? "must not be empty" : textProblem(dataType, /[|,]/, "| or ,"),
      );
    });
  }
  check("givenAt", integerProblem(input.givenAt));
  check(
    "source",
    SOURCES.includes(input.source) ? undefined : "must be brokered, direct, anonymous, linked or null",
  );
  return problems;
}
