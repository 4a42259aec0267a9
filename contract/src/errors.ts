// The error catalog: `contract/errors.json` is the data; this module is its typed view.
// The code lists below are written out by hand on purpose: they give SDKs and the server a literal
// union to switch on, and `contract/test/error-catalog.test.ts` and `catalog-openapi.test.ts` fail
// when they, the JSON catalog and the OpenAPI description (`ApiError.code` `x-guard-codes`)
// disagree in either direction.
import { readFileSync } from "node:fs";

/** Codes `/api/v1` (and `/cm/v1`) can return, in catalog order: contract 1.6.0 first, then 1.7.0's. */
export const API_ERROR_CODES = [
  "VALIDATION_ERROR",
  "NOTICE_NOT_PUBLISHED",
  "ALREADY_CONSENTED",
  "NOT_ASSOCIATED_WITH_ORG",
  "INVALID_STATUS_TRANSITION",
  "UNAUTHORIZED",
  "MINOR_TRACKING_BLOCKED",
  "NOT_FOUND",
  "SDK_VERSION_UNSUPPORTED",
  "RATE_LIMITED",
  "FORBIDDEN",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "INTERNAL_ERROR",
  "UNAVAILABLE",
] as const;

/** Codes of the separately versioned `/mcp/v1` agent surface; `/api/v1` never returns them. */
export const MCP_ERROR_CODES = [
  "SCOPE_INSUFFICIENT",
  "TOOL_NOT_AVAILABLE",
  "ORG_DISABLED",
  "APPROVAL_REQUIRED",
  "APPROVAL_BACKLOG_FULL",
  "PROPOSAL_EXPIRED",
  "SECOND_REVIEWER_REQUIRED",
  "PROPOSAL_ALREADY_REVIEWED",
  "DATA_VOLUME_EXCEEDED",
  "PLAN_LIMIT_REACHED",
  "AGENT_WRITE_BLOCKED",
] as const;

/** Every catalog code, in the catalog's fixed order. */
export const ERROR_CODES = [...API_ERROR_CODES, ...MCP_ERROR_CODES] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];
export type McpErrorCode = (typeof MCP_ERROR_CODES)[number];
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Which HTTP surface may return a code. */
export type ErrorSurface = "api" | "mcp";

export interface ErrorCatalogEntry {
  readonly code: ErrorCode;
  /** HTTP status the code maps to (always 4xx or 5xx). */
  readonly status: number;
  readonly surface: ErrorSurface;
  readonly description: string;
}

export interface ErrorCatalog {
  /** Contract package version the catalog belongs to. */
  readonly version: string;
  readonly codes: readonly ErrorCatalogEntry[];
}

/** Absolute URL of `contract/errors.json`. */
export const errorCatalogUrl = new URL("../errors.json", import.meta.url);

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && KNOWN_CODES.has(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Parse, never cast: a hand-edited catalog with a typo must fail at load, not at the first 500.
function parseEntry(raw: unknown, index: number): ErrorCatalogEntry {
  const where = `errors.json codes[${index}]`;
  if (!isRecord(raw)) throw new Error(`${where} is not an object`);
  const { code, status, surface, description } = raw;
  if (!isErrorCode(code)) throw new Error(`${where}: unknown code ${JSON.stringify(code)}`);
  if (typeof status !== "number" || !Number.isInteger(status) || status < 400 || status > 599) {
    throw new Error(`${where} (${code}): status must be an integer 400..599`);
  }
  if (surface !== "api" && surface !== "mcp") throw new Error(`${where} (${code}): bad surface`);
  if (typeof description !== "string" || description.length === 0) {
    throw new Error(`${where} (${code}): description must be a non-empty string`);
  }
  return Object.freeze({ code, status, surface, description });
}

/** Parses the catalog document's JSON value; throws with the offending entry on any defect. */
export function parseErrorCatalog(raw: unknown): ErrorCatalog {
  if (!isRecord(raw)) throw new Error("errors.json is not an object");
  const { version, codes } = raw;
  if (typeof version !== "string" || version.length === 0) throw new Error("errors.json: missing version");
  if (!Array.isArray(codes)) throw new Error("errors.json: codes must be an array");
  return Object.freeze({ version, codes: Object.freeze(codes.map(parseEntry)) });
}

const catalog = parseErrorCatalog(JSON.parse(readFileSync(errorCatalogUrl, "utf8")) as unknown);

/** Version of the catalog (equals the `@guard/contract` package version). */
export const ERROR_CATALOG_VERSION: string = catalog.version;

/** Every catalog entry, in the catalog's fixed order. */
export const ERROR_CATALOG: readonly ErrorCatalogEntry[] = catalog.codes;

const entriesByCode: ReadonlyMap<ErrorCode, ErrorCatalogEntry> = new Map(
  ERROR_CATALOG.map((entry) => [entry.code, entry]),
);

/** The catalog entry for a code. Throws if the catalog lacks it (the catalog test forbids that). */
export function catalogEntryFor(code: ErrorCode): ErrorCatalogEntry {
  const entry = entriesByCode.get(code);
  if (entry === undefined) throw new Error(`error code ${code} is missing from errors.json`);
  return entry;
}

/**
 * The HTTP status a code maps to. `ALREADY_CONSENTED` maps to 409; the one route that answers it
 * with 400 (anonymous capture, as contract 1.6.0 does) says so itself.
 */
export function statusForCode(code: ErrorCode): number {
  return catalogEntryFor(code).status;
}
