// The consent evidence export: every consent of an organisation given in [from, to) as CSV rows
// (RFC 4180, header first), read a page at a time so an export of any size holds one page in
// memory and no statement or transaction outlives a page (PGlite has one connection: a long read
// would stall every other request for the export's duration).
import { Readable } from "node:stream";
import type { Queryable } from "../db/database.js";
import { validationError } from "../lib/failure.js";
import { withExternalIds, type Consent } from "./model.js";
import { countConsentsGivenBetween, pageConsentsGivenBetween, type GivenKey } from "./store.js";

export const EVIDENCE_COLUMNS = [
  "consent_id",
  "principal_id",
  "external_id",
  "anonymous_id",
  "notice_id",
  "notice_version",
  "purpose",
  "data_types",
  "source",
  "given_at",
  "withdrawn_at",
  "withdrawal_reason",
  "audit_hash",
  "audit_key_version",
] as const;

/** Rows per statement: big enough that round trips do not dominate, small enough to hold. */
export const EXPORT_PAGE_ROWS = 2000;

export interface GivenRange {
  from: number;
  to: number;
}

/** The range as asked for; `to` must be after `from`. */
export function parseGivenRange(query: { from: number; to: number }): GivenRange {
  if (query.to <= query.from) throw validationError("to", "to must be after from");
  return { from: query.from, to: query.to };
}

// A spreadsheet runs a cell starting with one of these as a formula (CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;
// RFC 4180: a cell holding a comma, a quote or a line break is quoted, its quotes doubled.
const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV cell: formula-guarded with a leading `'`, then quoted when RFC 4180 requires it. */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 writes them. */
export const csvLine = (cells: readonly (string | number | null)[]): string =>
  `${cells.map(csvCell).join(",")}\r\n`;

const isoTime = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function evidenceLine(c: Consent): string {
  return csvLine([
    c.consentId,
    c.principalId,
    c.externalId,
    c.anonymousId,
    c.noticeId,
    c.noticeVersion,
    c.purpose,
    c.dataTypes.join(";"),
    c.source,
    isoTime(c.givenAt),
    isoTime(c.withdrawnAt),
    c.withdrawalReason,
    c.auditHash,
    c.auditKeyVersion,
  ]);
}

/** Rows the export will hold, counted before it starts (for the client's progress bar). */
export const countEvidenceRows = (db: Queryable, organizationId: string, range: GivenRange) =>
  countConsentsGivenBetween(db, organizationId, range);

/**
 * The CSV, one chunk per page: the header line, then each page's lines in given order. Each page is
 * its own statement with the externalIds of its principals read in one batch; nothing is read
 * ahead, so a consumer that stops pulling (a slow or gone client) stops the reads.
 */
export async function* consentEvidenceCsv(
  db: Queryable,
  organizationId: string,
  range: GivenRange,
  options: { pageRows?: number } = {},
): AsyncGenerator<string, void, undefined> {
  const pageRows = options.pageRows ?? EXPORT_PAGE_ROWS;
  yield csvLine(EVIDENCE_COLUMNS);
  let after: GivenKey | null = null;
  for (;;) {
    const page = await pageConsentsGivenBetween(db, organizationId, range, after, pageRows);
    if (page.length === 0) return;
    const consents = await withExternalIds(db, organizationId, page);
    yield consents.map(evidenceLine).join("");
    if (page.length < pageRows) return;
    const last = page[page.length - 1]!;
    after = { givenAt: last.givenAt, consentId: last.consentId };
  }
}

/**
 * The chunks as a byte stream. Not object mode: Readable.from's default would buffer 16 chunks
 * (16 pages) ahead of a slow reader; with a byte high-water mark one page chunk fills it, so the
 * next page is read only once the consumer has taken the last one.
 */
export const evidenceReadable = (chunks: AsyncIterable<string>): Readable =>
  Readable.from(chunks, { objectMode: false });

/** The download's file name: the organisation's slug and the range, as asked for. */
export const evidenceFileName = (slug: string, range: GivenRange): string =>
  `guard-consent-evidence-${slug}-${range.from}-${range.to}.csv`;
