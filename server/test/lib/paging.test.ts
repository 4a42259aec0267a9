// The cursor of lib/paging.ts: it round-trips its sort key, belongs to one scope, and any change to
// it is refused as VALIDATION_ERROR on `cursor`; page sizes default and clamp.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  MAX_PAGE_SIZE,
  pageInMemory,
  pageScope,
  pageSize,
} from "../../src/lib/paging.js";

const scope = pageScope("staffListDsrRequests", "org_paging000000001");
const refused = (fn: () => unknown) => assert.throws(fn, { code: "VALIDATION_ERROR", field: "cursor" });

test("a cursor gives back its key in its own scope only", () => {
  const cursor = encodeCursor(scope, [1_764_000_000_000, "dsr_abcdefgh12345678"]);
  assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{12}$/);
  assert.deepEqual(decodeCursor(scope, cursor, ["number", "string"]), [
    1_764_000_000_000,
    "dsr_abcdefgh12345678",
  ]);
  refused(() =>
    decodeCursor(pageScope("staffListDsrRequests", "org_paging000000002"), cursor, ["number", "string"]),
  );
  refused(() =>
    decodeCursor(pageScope("staffListGrievances", "org_paging000000001"), cursor, ["number", "string"]),
  );
  // The right scope but another key shape (a check that passes cannot smuggle in a wrong type).
  refused(() => decodeCursor(scope, cursor, ["string", "string"]));
  refused(() => decodeCursor(scope, cursor, ["number"]));
});

test("every one-character change, truncation or junk is refused", () => {
  const cursor = encodeCursor(scope, [42, "dsr_abcdefgh12345678"]);
  for (let i = 0; i < cursor.length; i++) {
    for (const c of ["A", "z", "0", "-", "_", "."]) {
      if (c === cursor[i]) continue;
      refused(() => decodeCursor(scope, cursor.slice(0, i) + c + cursor.slice(i + 1), ["number", "string"]));
    }
  }
  for (const junk of ["", ".", "abc", cursor.slice(0, -1), `${cursor}x`, `x${cursor}`]) {
    refused(() => decodeCursor(scope, junk, ["number", "string"]));
  }
  const unsafe = encodeCursor(scope, [2 ** 60, "dsr_abcdefgh12345678"]);
  refused(() => decodeCursor(scope, unsafe, ["number", "string"]));
});

test("page sizes: the default when absent, clamped to the maximum", () => {
  assert.equal(pageSize(undefined), DEFAULT_PAGE_SIZE);
  assert.equal(pageSize(7), 7);
  assert.equal(pageSize(10_000), MAX_PAGE_SIZE);
  assert.equal(pageSize(undefined, { size: 50, max: 200 }), 50);
  assert.equal(pageSize(999, { size: 50, max: 200 }), 200);
});

test("in-memory pages: by key, either direction; an item removed or added mid-walk moves nothing else", () => {
  const items = Array.from({ length: 9 }, (_, i) => ({
    id: `itm_${String(i).padStart(8, "0")}`,
    at: Math.floor(i / 3),
  }));
  const list = {
    scope,
    shape: ["number", "string"] as const,
    keyOf: (x: (typeof items)[number]) => [x.at, x.id],
  };
  for (const descending of [false, true]) {
    const expected = descending ? [...items].reverse() : items;
    const first = pageInMemory(items, { limit: 4 }, { ...list, descending });
    assert.deepEqual(first.items, expected.slice(0, 4));
    // The page's last item is removed and a new one is added before the walk's position.
    const changed = items
      .filter((x) => x !== first.items[3])
      .concat({ id: "itm_zzzzzzzz", at: descending ? 9 : -1 });
    const rest = pageInMemory(changed, { limit: 100, cursor: first.nextCursor! }, { ...list, descending });
    assert.deepEqual(rest.items, expected.slice(4));
    assert.equal(rest.nextCursor, null);
  }
});
