// Opaque ids and random strings (lib/ids.ts), drawn from a pooled CSPRNG.
import assert from "node:assert/strict";
import { test } from "node:test";
import { isId, newId, randomBase62 } from "../../src/lib/ids.js";

test("ids have the contract's shape and do not repeat", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 20_000; i += 1) {
    const id = newId("gdc");
    assert.ok(isId(id), id);
    seen.add(id);
  }
  assert.equal(seen.size, 20_000);
  assert.match(randomBase62(40), /^[0-9A-Za-z]{40}$/);
});

test("characters are uniform across the alphabet (no modulo bias)", () => {
  // 620 000 characters: 10 000 expected per character, standard deviation about 100. A plain
  // `byte % 62` would give the first eight characters about 21 % more; ±10 % is 10 deviations.
  const counts = new Map<string, number>();
  for (let i = 0; i < 15_500; i += 1)
    for (const ch of randomBase62(40)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  assert.equal(counts.size, 62);
  for (const [ch, n] of counts) assert.ok(n > 9_000 && n < 11_000, `${ch}: ${n}`);
});

test("any length, across the pool's refills", () => {
  // Lengths that do not divide the pool, one longer than half of it, and one longer than all of it.
  for (const length of [1, 7, 43, 64, 2049, 5000]) {
    for (let i = 0; i < 200; i += 1) {
      assert.match(randomBase62(length), new RegExp(`^[0-9A-Za-z]{${length}}$`));
    }
  }
});
