// Audit hash: the keyed fingerprint stored with every consent event (spec: contract/specs/audit-hash.md,
// vectors: contract/vectors/audit-hash.json). Byte-identical to contract 1.6.0's `auditHash.js`, whose
// vectors existing SDKs pass; any change here is a breaking contract change.
import { createHmac } from "node:crypto";

/** How a consent came about; the audit hash writes a missing source as the literal `null`. */
export const AUDIT_SOURCES = ["brokered", "direct", "anonymous", "linked"] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

export interface AuditHashInput {
  organizationId: string;
  noticeId: string;
  /** Non-negative safe integer. */
  noticeVersion: number;
  purpose: string;
  dataTypes: readonly string[];
  /** Epoch milliseconds, non-negative safe integer. */
  givenAt: number;
  source?: AuditSource | null;
}

/** One reason the server refuses an audit-hash input; `field` is a path such as `dataTypes[2]`. */
export interface AuditFieldProblem {
  field: string;
  reason: string;
}

const FIELD_SEPARATOR = "|";
const DATA_TYPE_SEPARATOR = ",";

/**
 * `organizationId|noticeId|noticeVersion|purpose|dataTypes|givenAt|source`. Total: it never throws and
 * never escapes, exactly as 1.6.0 did, so call {@link validateAuditFields} first on anything a caller sent.
 */
export function canonicalizeAuditEvent(input: AuditHashInput): string {
  // Copy before sorting: the caller's array is not ours to reorder. Default sort = UTF-16 code units.
  const dataTypes = [...input.dataTypes].sort().join(DATA_TYPE_SEPARATOR);
  return [
    input.organizationId,
    input.noticeId,
    String(input.noticeVersion),
    input.purpose,
    dataTypes,
    String(input.givenAt),
    input.source ?? "null",
  ].join(FIELD_SEPARATOR);
}

/** Lowercase hex HMAC-SHA256 of the canonical string, keyed with the UTF-8 bytes of `secret`. */
export function computeAuditHash(secret: string, input: AuditHashInput): string {
  return createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(Buffer.from(canonicalizeAuditEvent(input), "utf8"))
    .digest("hex");
}

// A lone surrogate has no UTF-8 encoding; encoders substitute U+FFFD, so "a\uD800" and "a\uFFFD" would
// share one hash. With the `u` flag this class matches only unpaired surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function stringProblem(field: string, value: unknown, forbidden: readonly string[]): AuditFieldProblem[] {
  if (typeof value !== "string") return [{ field, reason: "must be a string" }];
  for (const separator of forbidden) {
    if (value.includes(separator)) return [{ field, reason: `must not contain "${separator}"` }];
  }
  if (LONE_SURROGATE.test(value)) {
    return [{ field, reason: "must be well-formed Unicode (no unpaired surrogate)" }];
  }
  return [];
}

function integerProblem(field: string, value: unknown): AuditFieldProblem[] {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0
    ? []
    : [{ field, reason: "must be a non-negative safe integer" }];
}

/**
 * The problems that would make two different inputs share one canonical string (the fields are not
 * framed), plus ill-typed values. Empty list = safe to hash. The server refuses input with problems.
 * An empty data type is refused because `[""]` and `[]` both give an empty segment.
 */
export function validateAuditFields(input: AuditHashInput): AuditFieldProblem[] {
  const problems: AuditFieldProblem[] = [
    ...stringProblem("organizationId", input.organizationId, [FIELD_SEPARATOR]),
    ...stringProblem("noticeId", input.noticeId, [FIELD_SEPARATOR]),
    ...integerProblem("noticeVersion", input.noticeVersion),
    ...stringProblem("purpose", input.purpose, [FIELD_SEPARATOR]),
  ];
  const dataTypes: unknown = input.dataTypes;
  if (!Array.isArray(dataTypes)) {
    problems.push({ field: "dataTypes", reason: "must be an array of strings" });
  } else {
    dataTypes.forEach((dataType: unknown, index) => {
      const field = `dataTypes[${index}]`;
      const found = stringProblem(field, dataType, [FIELD_SEPARATOR, DATA_TYPE_SEPARATOR]);
      if (found.length === 0 && dataType === "") found.push({ field, reason: "must not be empty" });
      problems.push(...found);
    });
  }
  problems.push(...integerProblem("givenAt", input.givenAt));
  const source: unknown = input.source;
  if (source !== null && source !== undefined && !(AUDIT_SOURCES as readonly unknown[]).includes(source)) {
    problems.push({ field: "source", reason: `must be one of ${AUDIT_SOURCES.join(", ")}, or absent` });
  }
  return problems;
}
