// Password hashing (lib/secrets.ts) at the cost the service uses. This file does not load the test
// harness, which lowers the cost for the other suites (support/harness.ts), so what it checks is
// what `guard serve` stores.
import assert from "node:assert/strict";
import { test } from "node:test";
import { hashPassword, usePasswordHashCostForTests, verifyPassword } from "../../src/lib/secrets.js";

test("passwords are stored as scrypt with N=2^15, r=8, p=1, a 16-byte salt and a 32-byte key", async () => {
  const stored = await hashPassword("correct horse battery staple");
  const [scheme, n, r, p, salt, key] = stored.split("$");
  assert.deepEqual([scheme, n, r, p], ["scrypt", "32768", "8", "1"]);
  assert.equal(Buffer.from(salt!, "base64").length, 16);
  assert.equal(Buffer.from(key!, "base64").length, 32);
  assert.equal(await verifyPassword("correct horse battery staple", stored), true);
  assert.equal(await verifyPassword("correct horse battery staple!", stored), false);
  assert.notEqual(await hashPassword("correct horse battery staple"), stored, "a fresh salt each time");
});

test("a hash is verified with the cost stored beside it, so the cost can change without resetting passwords", async () => {
  usePasswordHashCostForTests(2 ** 10);
  try {
    const cheaper = await hashPassword("s3cret-enough");
    assert.match(cheaper, /^scrypt\$1024\$8\$1\$/);
    usePasswordHashCostForTests(2 ** 15);
    assert.equal(await verifyPassword("s3cret-enough", cheaper), true);
    assert.equal(await verifyPassword("s3cret-enough?", cheaper), false);
  } finally {
    usePasswordHashCostForTests(2 ** 15);
  }
});

test("a stored value that is not an scrypt hash never verifies", async () => {
  for (const stored of ["", "plain", "bcrypt$10$x$y$z$w", "scrypt$32768$8$1$onlysalt"])
    assert.equal(await verifyPassword("anything", stored), false, stored);
});
