// The one CSV reader of the tests that check Guard's consent-evidence export: the server's own test
// (server/test/consent/evidence-export.test.ts) and the dashboard's download in Chromium
// (dashboard/test/browser/export.test.ts) parse the file the same way, so both judge the same format.
import assert from "node:assert/strict";

/**
 * Splits CSV text into records of cells (RFC 4180: quoted cells may hold commas, quotes and CRLF).
 * Every record must end with CRLF, as Guard writes them: a trailing partial record fails the test.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      record.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      record.push(cell);
      records.push(record);
      record = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  assert.equal(cell + record.join(""), "", "the CSV text ends with a complete record (CRLF)");
  return records;
}
