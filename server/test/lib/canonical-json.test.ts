// canonicalJson (lib/canonical-json.ts): the text every stored hash depends on (idempotency request
// hashes, audit-chain payloads), so its output must never change; and no value, however deep, may
// overflow the stack (issue 22: a deeply nested body sent with an Idempotency-Key was a 500).
import assert from "node:assert/strict";
import { test } from "node:test";
import { CanonicalJsonError, canonicalJson } from "../../src/lib/canonical-json.js";

/** The first, recursive implementation, kept as the reference for the text. */
function recursiveReference(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`no JSON form for ${value}`);
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map((item) => recursiveReference(item ?? null)).join(",")}]`;
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${recursiveReference(v)}`).join(",")}}`;
    }
    default:
      throw new CanonicalJsonError(`no canonical JSON for a ${typeof value}`);
  }
}

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ["a", "b", "B", "é", "z", "aa", "", "10", "2", "😀", "\u0001", "key with space"];

function randomValue(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 4 ? 6 : 9));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return Math.floor(next() * 2e6) - 1e6;
    case 3:
      return next() * 1e3;
    case 4:
      return KEYS[Math.floor(next() * KEYS.length)]! + '"\\\n';
    case 5:
      return "";
    case 6:
      return Array.from({ length: Math.floor(next() * 4) }, () =>
        next() < 0.1 ? undefined : randomValue(next, depth + 1),
      );
    default: {
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--) {
        object[KEYS[Math.floor(next() * KEYS.length)]!] =
          next() < 0.1 ? undefined : randomValue(next, depth + 1);
      }
      return object;
    }
  }
}

test("writes exactly the text the recursive form wrote, for many random values", () => {
  const next = random(22);
  for (let i = 0; i < 2000; i++) {
    const value = randomValue(next, 0);
    assert.equal(canonicalJson(value), recursiveReference(value), JSON.stringify(value));
  }
});

test("fixed examples: sorted keys, undefined members dropped, undefined items null", () => {
  assert.equal(
    canonicalJson({ b: 1, a: [true, undefined, null, "x"], c: undefined }),
    '{"a":[true,null,null,"x"],"b":1}',
  );
  assert.equal(canonicalJson({ B: 1, a: 2, é: 3 }), '{"B":1,"a":2,"é":3}');
  assert.equal(canonicalJson([]), "[]");
  assert.equal(canonicalJson({}), "{}");
  assert.equal(canonicalJson("x"), '"x"');
  const shared = { k: 1 };
  assert.equal(canonicalJson({ a: shared, b: [shared] }), '{"a":{"k":1},"b":[{"k":1}]}');
});

test("a value nested 100 000 levels deep is written, not a stack overflow", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
  let opening = "";
  let closing = "";
  for (let i = 99_999; i >= 0; i--) opening += i % 2 ? "[" : '{"k":';
  for (let i = 0; i < 100_000; i++) closing += i % 2 ? "]" : "}";
  assert.equal(canonicalJson(deep), `${opening}"leaf"${closing}`);
});

test("values with no JSON form are refused with CanonicalJsonError", () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = { again: cyclic };
  const looping: unknown[] = [];
  looping.push([looping]);
  for (const value of [cyclic, looping, { n: Number.NaN }, [Infinity], { f: () => 1 }, 10n, Symbol("s")]) {
    assert.throws(() => canonicalJson(value), CanonicalJsonError);
  }
});
