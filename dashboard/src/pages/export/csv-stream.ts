// What the Export page needs to follow a streamed CSV without parsing it: how many records have
// ended so far (RFC 4180: a line break inside a quoted cell does not end a record), whether the
// body stopped mid-record, the file name the server chose, and the range the date inputs mean.
// Bytes are scanned as they arrive: `"` and LF are single bytes that never occur inside a UTF-8
// multi-byte character, so no decoding is needed and a chunk may end anywhere.

const QUOTE = 0x22;
const LF = 0x0a;

/** Counts CSV records across chunks. `rows` excludes the header record. */
export class CsvRecordCounter {
  private records = 0;
  private inQuotes = false;
  private lastByte: number | undefined;

  push(chunk: Uint8Array): void {
    for (const byte of chunk) {
      // A doubled quote inside a quoted cell toggles twice: the state comes out right either way.
      if (byte === QUOTE) this.inQuotes = !this.inQuotes;
      else if (byte === LF && !this.inQuotes) this.records++;
    }
    if (chunk.length > 0) this.lastByte = chunk[chunk.length - 1];
  }

  /** Data records complete so far (the header is the first record). */
  get rows(): number {
    return Math.max(0, this.records - 1);
  }

  /** Whether the header row arrived. */
  get hasHeader(): boolean {
    return this.records > 0;
  }

  /** True when the bytes so far end exactly after a record (every record is CRLF-terminated). */
  get endsCleanly(): boolean {
    return !this.inQuotes && (this.lastByte === undefined || this.lastByte === LF);
  }
}

/** The file name of a `Content-Disposition: attachment; filename="..."` header, if it has a safe one. */
export function fileNameFrom(disposition: string | null, fallback: string): string {
  const match = disposition ? /filename="([^"]+)"/i.exec(disposition) : null;
  const name = match?.[1];
  // The server names files from the org slug and numbers; anything with a path separator is refused.
  return name && !/[/\\]/.test(name) ? name : fallback;
}

/** Local midnight of a `YYYY-MM-DD` date input's value as epoch ms, or undefined when not a date. */
export function localDayStart(value: string, plusDays = 0): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return undefined;
  const at = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + plusDays);
  return Number.isNaN(at.getTime()) ? undefined : at.getTime();
}

/** A local date as a date input's value (`YYYY-MM-DD`). */
export function dateInputValue(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/**
 * The export range of two inclusive local dates: `from` at its midnight, `to` at the next day's
 * midnight (the API's `to` is exclusive), both in the browser's time zone.
 */
export function exportRange(fromDate: string, toDate: string): { from?: number; to?: number } {
  return { from: localDayStart(fromDate), to: localDayStart(toDate, 1) };
}

/** "12.4 kB", "3.1 MB" */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
