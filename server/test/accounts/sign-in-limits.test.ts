// Staff sign-in limits (accounts/sign-in-limits.ts): only failures count and a success clears them;
// an attacker is slowed by a doubling wait; the owner is not locked out by failures from elsewhere;
// an account that does not exist is limited exactly like one that does; the counters are shared by
// every instance; and X-Forwarded-For names the client only when it comes from a trusted proxy.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { clientNetwork, signInDelayMs, SIGN_IN_LIMITS } from "../../src/accounts/sign-in-limits.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import { assertApiError } from "../support/api-error.js";
import {
  seedOrganization,
  startSecondInstance,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";

const SESSION = "/api/v1/staff/session";
const DAY = 24 * 3_600_000;
const { accountNetworkAllowance, accountAllowance, networkAllowance } = SIGN_IN_LIMITS;

/** Where a request comes from: the peer's address, and the X-Forwarded-For it sends, if any. */
interface From {
  address?: string;
  forwardedFor?: string;
}

const signInFrom = (
  t: TestApp,
  credentials: { organizationSlug: string; email: string; password: string },
  from: From,
) =>
  t.request({
    method: "POST",
    url: SESSION,
    payload: credentials,
    ...(from.address ? { remoteAddress: from.address } : {}),
    ...(from.forwardedFor ? { headers: { "x-forwarded-for": from.forwardedFor } } : {}),
  });

/** The Retry-After of a 429 RATE_LIMITED answer, in seconds. */
function retryAfter(res: LightMyRequestResponse): number {
  assertApiError(res, 429, "RATE_LIMITED");
  const seconds = Number(res.headers["retry-after"]);
  assert.ok(Number.isInteger(seconds) && seconds >= 1, `Retry-After ${res.headers["retry-after"]}`);
  return seconds;
}

describe("staff sign-in limits", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const owner = (seeded: SeededOrg) => ({ organizationSlug: seeded.org.slug, ...seeded.staff.admin });
  const wrong = (seeded: SeededOrg, n: number | string, email = seeded.staff.admin.email) => ({
    organizationSlug: seeded.org.slug,
    email,
    password: `wrong-password-${n}`,
  });

  /** `count` wrong passwords from `from`, each answered 401. */
  async function fail(seeded: SeededOrg, count: number, from: From, email?: string): Promise<void> {
    for (let i = 0; i < count; i++)
      assertApiError(await signInFrom(t, wrong(seeded, i, email), from), 401, "UNAUTHORIZED");
  }

  test("successful sign-ins are never refused, and each clears the failures before it", async () => {
    const seeded = await seedOrganization(t);
    const from = { address: "198.51.100.1" };
    for (let i = 0; i < 12; i++) {
      const res = await signInFrom(t, owner(seeded), from);
      assert.equal(res.statusCode, 201, `sign-in ${i + 1}: ${res.body}`);
    }
    // Typos between successes never add up to a wait.
    for (let round = 0; round < 2; round++) {
      await fail(seeded, accountNetworkAllowance - 1, from);
      assert.equal((await signInFrom(t, owner(seeded), from)).statusCode, 201);
    }
  });

  test("an attacker at one address waits longer after each failure: 1 s, 2 s, 4 s ... 15 minutes", async () => {
    const seeded = await seedOrganization(t);
    const attacker = { address: "203.0.113.10" };
    await fail(seeded, accountNetworkAllowance, attacker);

    const waits: number[] = [];
    for (let i = 0; i < 11; i++) {
      const wait = retryAfter(await signInFrom(t, wrong(seeded, "again"), attacker));
      // Refused attempts check no password and count nothing: hammering does not move the wait,
      // and even the right password is refused from here until it has passed.
      assert.equal(retryAfter(await signInFrom(t, wrong(seeded, "hammer"), attacker)), wait);
      assert.equal(retryAfter(await signInFrom(t, owner(seeded), attacker)), wait);
      waits.push(wait);
      t.clock.advance(wait * 1000);
      assertApiError(await signInFrom(t, wrong(seeded, i), attacker), 401, "UNAUTHORIZED");
    }
    assert.deepEqual(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900]);

    // The email is matched case-insensitively, so changing its case is the same account.
    const shouted = wrong(seeded, "shouted", seeded.staff.admin.email.toUpperCase());
    assert.equal(retryAfter(await signInFrom(t, shouted, attacker)), 900);
    // Another account from the same address is not held back.
    const dpo = { organizationSlug: seeded.org.slug, ...seeded.staff.dpo };
    assert.equal((await signInFrom(t, dpo, attacker)).statusCode, 201);

    // Once the wait has passed the right password works there too, and clears the failures.
    t.clock.advance(900_000);
    assert.equal((await signInFrom(t, owner(seeded), attacker)).statusCode, 201);
    await fail(seeded, accountNetworkAllowance, attacker);
    assert.equal(retryAfter(await signInFrom(t, owner(seeded), attacker)), 1);
  });

  test("the owner signs in from another address while an attacker is held back", async () => {
    const seeded = await seedOrganization(t);
    const known = { address: "198.51.100.20" };
    assert.equal((await signInFrom(t, owner(seeded), known)).statusCode, 201);

    // An attacker at one address, waiting out every 429, until held back there for a while.
    const attacker = { address: "203.0.113.20" };
    let failures = 0;
    while (failures < accountNetworkAllowance + 3) {
      const res = await signInFrom(t, wrong(seeded, failures), attacker);
      if (res.statusCode === 429) t.clock.advance(retryAfter(res) * 1000);
      else {
        assertApiError(res, 401, "UNAUTHORIZED");
        failures++;
      }
    }
    assert.ok(retryAfter(await signInFrom(t, owner(seeded), attacker)) > 1);
    // The owner at an address never seen before is not held back by the attacker's failures...
    assert.equal((await signInFrom(t, owner(seeded), { address: "198.51.100.21" })).statusCode, 201);

    // ... and a spread-out attack, which passes the account's allowance, does not hold back the
    // owner where they have signed in before, though it does hold back every new address.
    for (let i = 0; i < accountAllowance; i++)
      assertApiError(
        await signInFrom(t, wrong(seeded, i), { address: `203.0.114.${i}` }),
        401,
        "UNAUTHORIZED",
      );
    assert.equal(retryAfter(await signInFrom(t, wrong(seeded, "new"), { address: "203.0.115.1" })), 1);
    assert.equal(retryAfter(await signInFrom(t, owner(seeded), { address: "198.51.100.22" })), 1);
    assert.equal((await signInFrom(t, owner(seeded), known)).statusCode, 201);
    // That success cleared the account's failures: a new address may try again.
    assert.equal((await signInFrom(t, owner(seeded), { address: "198.51.100.22" })).statusCode, 201);
  });

  test("an address trying many accounts is held back after its allowance of failures; successes do not count", async () => {
    const seeded = await seedOrganization(t);
    const office = { address: "198.51.100.30" };
    const admin = owner(seeded);
    for (let i = 0; i < networkAllowance - 1; i++) {
      const email = `nobody-${i}@${seeded.org.slug}.example`;
      assertApiError(await signInFrom(t, wrong(seeded, i, email), office), 401, "UNAUTHORIZED");
      if (i % 10 === 0) assert.equal((await signInFrom(t, admin, office)).statusCode, 201);
    }
    const last = `nobody-last@${seeded.org.slug}.example`;
    assertApiError(await signInFrom(t, wrong(seeded, "last", last), office), 401, "UNAUTHORIZED");
    // The address has used its allowance: every account is held back there...
    const viewer = { organizationSlug: seeded.org.slug, ...seeded.staff.viewer };
    assert.equal(retryAfter(await signInFrom(t, viewer, office)), 1);
    assert.equal(retryAfter(await signInFrom(t, wrong(seeded, 0, "someone@else.example"), office)), 1);
    // ... except an account whose owner has signed in from it: the admin still does.
    assert.equal((await signInFrom(t, admin, office)).statusCode, 201);
    // Elsewhere, the viewer is not held back.
    assert.equal((await signInFrom(t, viewer, { address: "198.51.100.31" })).statusCode, 201);
  });

  test("an account that does not exist is limited exactly like one that does", async () => {
    const seeded = await seedOrganization(t);
    const answers = async (credentials: ReturnType<typeof wrong>, address: string) => {
      const seen: string[] = [];
      for (let i = 0; i < accountNetworkAllowance + 2; i++) {
        const res = await signInFrom(t, { ...credentials, password: `guess-${i}` }, { address });
        const body = res.json() as { code: string; error: string };
        seen.push(`${res.statusCode} ${body.code} ${body.error} ${res.headers["retry-after"] ?? "-"}`);
        if (res.statusCode === 429) t.clock.advance(Number(res.headers["retry-after"]) * 1000);
      }
      return seen;
    };
    const existing = await answers(wrong(seeded, 0), "203.0.113.40");
    const noSuchEmail = await answers(wrong(seeded, 0, `ghost@${seeded.org.slug}.example`), "203.0.113.41");
    const noSuchOrg = await answers({ ...wrong(seeded, 0), organizationSlug: "no-such-org" }, "203.0.113.42");
    assert.deepEqual(noSuchEmail, existing);
    assert.deepEqual(noSuchOrg, existing);
    assert.ok(existing.some((answer) => answer.startsWith("429")));
  });

  test("parallel attempts cannot get more passwords checked than the allowance", async () => {
    const seeded = await seedOrganization(t);
    const burst = await Promise.all(
      Array.from({ length: 3 * accountNetworkAllowance }, (_, i) =>
        signInFrom(t, wrong(seeded, i), { address: "203.0.113.50" }),
      ),
    );
    const statuses = burst.map((res) => res.statusCode);
    assert.equal(statuses.filter((s) => s === 401).length, accountNetworkAllowance, statuses.join(","));
    assert.equal(statuses.filter((s) => s === 429).length, 2 * accountNetworkAllowance, statuses.join(","));
  });

  test("failures are forgotten a day after the last one", async () => {
    const seeded = await seedOrganization(t);
    const from = { address: "203.0.113.60" };
    await fail(seeded, accountNetworkAllowance, from);
    retryAfter(await signInFrom(t, wrong(seeded, "x"), from));
    t.clock.advance(DAY);
    await fail(seeded, accountNetworkAllowance, from);
    assert.equal(retryAfter(await signInFrom(t, wrong(seeded, "y"), from)), 1);
  });

  test("every instance counts against the same failures", async () => {
    const seeded = await seedOrganization(t);
    const second = await startSecondInstance(t);
    try {
      const from = { address: "203.0.113.70" };
      await fail(seeded, accountNetworkAllowance, from);
      assert.equal(retryAfter(await signInFrom(second, wrong(seeded, "x"), from)), 1);
      t.clock.advance(1000);
      assert.equal((await signInFrom(second, owner(seeded), from)).statusCode, 201);
      // The success on the second instance cleared the failures for the first.
      await fail(seeded, accountNetworkAllowance - 1, from);
      assert.equal((await signInFrom(t, owner(seeded), from)).statusCode, 201);
    } finally {
      await second.close();
    }
  });
});

describe("the client address behind a proxy", () => {
  const proxy = "10.0.0.5";
  let direct: TestApp;
  let proxied: TestApp;
  before(async () => {
    direct = await startTestApp();
    proxied = await startTestApp({ trustProxy: [proxy] });
  });
  after(async () => {
    await direct.close();
    await proxied.close();
  });

  /**
   * Ten failures from `attackerFrom` (waiting out each 429; more than the old fixed window allowed
   * per account), then the owner's sign-in from `ownerFrom`.
   */
  async function ownerAfterAttack(t: TestApp, attackerFrom: From, ownerFrom: From) {
    const seeded = await seedOrganization(t);
    const slug = seeded.org.slug;
    for (let failures = 0; failures < 10;) {
      const res = await signInFrom(
        t,
        { organizationSlug: slug, email: seeded.staff.admin.email, password: `wrong-${failures}` },
        attackerFrom,
      );
      if (res.statusCode === 429) t.clock.advance(retryAfter(res) * 1000);
      else {
        assertApiError(res, 401, "UNAUTHORIZED");
        failures++;
      }
    }
    return signInFrom(t, { organizationSlug: slug, ...seeded.staff.admin }, ownerFrom);
  }

  test("from a trusted proxy, X-Forwarded-For tells clients apart", async () => {
    const res = await ownerAfterAttack(
      proxied,
      { address: proxy, forwardedFor: "203.0.113.80" },
      { address: proxy, forwardedFor: "198.51.100.80" },
    );
    assert.equal(res.statusCode, 201, res.body);
    // Addresses a client writes in front of the proxy's own entry are not believed: the client is
    // the address the trusted proxy appended.
    const chained = await ownerAfterAttack(
      proxied,
      { address: proxy, forwardedFor: "198.51.100.81, 203.0.113.81" },
      { address: proxy, forwardedFor: "203.0.113.81, 198.51.100.81" },
    );
    assert.equal(chained.statusCode, 201, chained.body);
  });

  test("from any other peer, or without GUARD_TRUST_PROXY, X-Forwarded-For is ignored", async () => {
    // An attacker connecting directly cannot pose as a new client by changing the header...
    const spoofed = await ownerAfterAttack(
      proxied,
      { address: "203.0.113.90", forwardedFor: "192.0.2.1" },
      { address: "203.0.113.90", forwardedFor: "198.51.100.90" },
    );
    assert.equal(retryAfter(spoofed), 32);
    // ... and without the setting, every client behind a proxy is the proxy.
    const unset = await ownerAfterAttack(
      direct,
      { address: proxy, forwardedFor: "203.0.113.91" },
      { address: proxy, forwardedFor: "198.51.100.91" },
    );
    assert.equal(retryAfter(unset), 32);
  });

  test("GUARD_TRUST_PROXY: off by default; addresses, CIDR ranges and range names; anything else refused", () => {
    const base = {
      GUARD_TOKEN_SECRET: "test-token-secret-test-token-secret-0123456789",
      GUARD_AUDIT_HASH_KEYS: "1:test-audit-secret-test-audit-secret-0123456789",
      GUARD_SECRETS_KEY: "test-secrets-key-test-secrets-key-0123456789",
    };
    const trustProxy = (value?: string) =>
      loadConfig(value === undefined ? base : { ...base, GUARD_TRUST_PROXY: value }).trustProxy;
    for (const off of [undefined, "", "false", "off", "0"]) assert.equal(trustProxy(off), false, String(off));
    assert.deepEqual(trustProxy("10.0.0.5"), ["10.0.0.5"]);
    assert.deepEqual(trustProxy(" 10.0.0.0/8, fd00::/8 ,loopback"), ["10.0.0.0/8", "fd00::/8", "loopback"]);
    for (const refused of [
      "true",
      "1",
      "2",
      "proxy.internal",
      "10.0.0.0/33",
      "::1/129",
      "10.0.0.1/8/8",
      "10.0.0/8",
    ]) {
      assert.throws(() => trustProxy(refused), ConfigError, refused);
      assert.throws(() => trustProxy(refused), /GUARD_TRUST_PROXY/, refused);
    }
  });
});

describe("sign-in limit rules", () => {
  test("the wait doubles from 1 s after the allowance, up to 15 minutes", () => {
    assert.deepEqual(
      [4, 5, 6, 7, 14, 15, 16, 1000].map((failures) => signInDelayMs(failures, 5)),
      [0, 1000, 2000, 4000, 512_000, 900_000, 900_000, 900_000],
    );
  });

  test("a client's network: its IPv4 address, or its IPv6 /64", () => {
    assert.equal(clientNetwork("203.0.113.7"), "203.0.113.7");
    assert.equal(clientNetwork("::ffff:203.0.113.7"), "203.0.113.7");
    assert.equal(clientNetwork("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
    assert.equal(clientNetwork("2001:0db8:0001:0002::9"), "2001:db8:1:2::/64");
    assert.equal(clientNetwork("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(clientNetwork("fe80::1%eth0"), "fe80:0:0:0::/64");
    assert.equal(clientNetwork("::1"), "0:0:0:0::/64");
    assert.equal(clientNetwork(""), "unknown");
  });
});
