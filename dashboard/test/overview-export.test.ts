// Pure logic of the Overview chart (every day of the range at the viewer's offset, purpose order,
// totals, axis ticks) and of the Export page's stream follower (records across chunk boundaries,
// quoted line breaks, a truncated body, the file name, local-date ranges).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  CsvRecordCounter,
  exportRange,
  fileNameFrom,
  localDayStart,
} from "../src/pages/export/csv-stream.js";
import { axisTicks, consentSeries, dayAt } from "../src/pages/overview/series.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("overview series", () => {
  // 3 days in India ending 2026-11-23: the first day's midnight IST is 2026-11-20 18:30 UTC.
  const from = Date.UTC(2026, 10, 20, 18, 30);
  const overview = {
    from,
    utcOffsetMinutes: 330,
    days: 3,
    consentsPerDay: [
      { day: "2026-11-21", purpose: "Marketing", given: 2, withdrawn: 1 },
      { day: "2026-11-23", purpose: "Account", given: 5, withdrawn: 0 },
      { day: "2026-11-23", purpose: "Marketing", given: 1, withdrawn: 2 },
    ],
  };

  test("days are the calendar days at the offset, the first at `from`", () => {
    assert.equal(dayAt(overview, 0), "2026-11-21");
    assert.equal(dayAt(overview, 2), "2026-11-23");
    assert.equal(dayAt({ from: Date.UTC(2026, 10, 21, 4), utcOffsetMinutes: -240 }, 0), "2026-11-21");
  });

  test("every day of the range is present, empty days as zeros; purposes most given first", () => {
    const s = consentSeries(overview);
    assert.deepEqual(s.purposes, ["Account", "Marketing"]);
    assert.deepEqual(
      s.days.map((d) => [d.day, d.given, d.withdrawn]),
      [
        ["2026-11-21", [0, 2], [0, 1]],
        ["2026-11-22", [0, 0], [0, 0]],
        ["2026-11-23", [5, 1], [0, 2]],
      ],
    );
    assert.equal(s.totalGiven, 8);
    assert.equal(s.totalWithdrawn, 3);
    assert.equal(s.max, 6);
  });

  test("a day outside the range is not drawn", () => {
    const s = consentSeries({
      ...overview,
      consentsPerDay: [{ day: "2026-11-24", purpose: "Marketing", given: 9, withdrawn: 0 }],
    });
    assert.equal(s.totalGiven, 0);
  });

  test("axis ticks are round and cover the maximum", () => {
    assert.deepEqual(axisTicks(0), [0, 1]);
    assert.deepEqual(axisTicks(3), [0, 1, 2, 3]);
    assert.deepEqual(axisTicks(10), [0, 5, 10]);
    assert.deepEqual(axisTicks(11), [0, 5, 10, 15]);
    assert.deepEqual(axisTicks(950), [0, 500, 1000]);
  });
});

describe("export stream follower", () => {
  test("counts records across chunk boundaries, ignoring line breaks inside quoted cells", () => {
    const csv = 'a,b\r\n1,"two\r\nlines"\r\n2,"say ""hi"""\r\n3,x\r\n';
    for (let size = 1; size <= csv.length; size++) {
      const counter = new CsvRecordCounter();
      const all = bytes(csv);
      for (let i = 0; i < all.length; i += size) counter.push(all.subarray(i, i + size));
      assert.equal(counter.rows, 3, `chunks of ${size}`);
      assert.ok(counter.endsCleanly);
      assert.ok(counter.hasHeader);
    }
  });

  test("a body that stops mid-record or inside quotes is not clean; an empty one has no header", () => {
    const cut = new CsvRecordCounter();
    cut.push(bytes("a,b\r\n1,x\r\n2,y"));
    assert.equal(cut.rows, 1);
    assert.equal(cut.endsCleanly, false);
    const inQuotes = new CsvRecordCounter();
    inQuotes.push(bytes('a,b\r\n1,"x\r\n'));
    assert.equal(inQuotes.endsCleanly, false);
    const empty = new CsvRecordCounter();
    assert.equal(empty.hasHeader, false);
    assert.equal(empty.rows, 0);
  });

  test("multi-byte UTF-8 split across chunks does not disturb the count", () => {
    const all = bytes('purpose\r\nनिजता,"ग"\r\n');
    const counter = new CsvRecordCounter();
    counter.push(all.subarray(0, 12));
    counter.push(all.subarray(12));
    assert.equal(counter.rows, 1);
  });

  test("the file name comes from Content-Disposition, never with a path", () => {
    assert.equal(fileNameFrom('attachment; filename="guard-x-1-2.csv"', "f.csv"), "guard-x-1-2.csv");
    assert.equal(fileNameFrom('attachment; filename="../evil.csv"', "f.csv"), "f.csv");
    assert.equal(fileNameFrom(null, "f.csv"), "f.csv");
  });

  test("date inputs become local midnights; `to` is the day after the last day", () => {
    assert.equal(localDayStart("2026-11-26"), new Date(2026, 10, 26).getTime());
    assert.equal(localDayStart(""), undefined);
    assert.equal(localDayStart("26/11/2026"), undefined);
    const { from, to } = exportRange("2026-11-01", "2026-11-30");
    assert.equal(from, new Date(2026, 10, 1).getTime());
    assert.equal(to, new Date(2026, 11, 1).getTime());
  });
});
