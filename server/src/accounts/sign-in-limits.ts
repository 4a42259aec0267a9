// Staff sign-in limits: slow down password guessing without letting anyone lock the owner out.
//
// Only failed attempts count, and a success clears the account's count. Failures are counted on
// three counters: the account from this client network, the account from everywhere, and this
// network at every account. Each allows a number of failures, then makes every further attempt
// wait: 1 s after the first failure over the allowance, then 2 s, 4 s ... at most 15 minutes,
// answered 429 RATE_LIMITED with Retry-After.
//
// - (account, network) always applies: it slows one guesser at one account, and only someone at
//   the same network (the owner's own) is slowed with them.
// - The account from everywhere (a higher allowance) slows guessing spread over many networks, and
//   the network at every account slows one network trying many accounts. Neither applies to a
//   network the account's owner has signed in from in the last 30 days: failures counted
//   elsewhere never hold the owner back there.
//
// An attempt is counted as a failure before its password is checked, in one transaction over the
// three counters, so that parallel attempts cannot all pass the check before any failure is
// recorded; a success then takes its failure back. Accounts are counted by what was typed
// (organisation slug and lower-cased email), existing or not, and a refused attempt checks no
// password, so neither the limits nor the time they take tell whether an account exists.
import { isIPv4, isIPv6 } from "node:net";
import type { Database } from "../db/database.js";
import { Failure } from "../lib/failure.js";
import {
  lockSignInCounters,
  resetSignInCounters,
  setSignInFailures,
  sweepSignInCounters,
  uncountSignInFailure,
  type SignInCounter,
} from "./store.js";

const HOUR = 3_600_000;

export const SIGN_IN_LIMITS = {
  /** Failures at one account from one network before each further attempt must wait. */
  accountNetworkAllowance: 5,
  /** Failures at one account from networks its owner has not signed in from. */
  accountAllowance: 20,
  /** Failures from one network at any accounts, unless the account's owner signs in from there. */
  networkAllowance: 50,
  firstDelayMs: 1_000,
  maxDelayMs: 15 * 60_000,
  /** Failures are forgotten this long after the last one. Longer than maxDelayMs, or waiting would reset them. */
  forgetFailuresAfterMs: 24 * HOUR,
  /** A network stays known to an account this long after its last successful sign-in from there. */
  knownNetworkMs: 30 * 24 * HOUR,
} as const;

/** How long the next attempt must wait after `failures` failures on a counter with this allowance. */
export function signInDelayMs(failures: number, allowance: number): number {
  if (failures < allowance) return 0;
  const doublings = Math.min(failures - allowance, 30);
  return Math.min(SIGN_IN_LIMITS.maxDelayMs, SIGN_IN_LIMITS.firstDelayMs * 2 ** doublings);
}

/**
 * The network a client address counts as: the address itself, except that an IPv6 client counts as
 * its /64 (one subscriber commonly holds a whole /64) and an IPv4-mapped IPv6 address as its IPv4.
 */
export function clientNetwork(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address)) return address;
  const bare = address.split("%")[0]!; // a zone index names an interface, not a client
  if (!isIPv6(bare)) return address.slice(0, 100) || "unknown";
  const [head = "", tail] = bare.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  // An embedded dotted IPv4 ending (only ever in the low 64 bits) fills two groups.
  const tailGroups =
    tail === undefined ? [] : groups(tail).flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]));
  const headGroups = groups(head);
  const zeros = Array<string>(8 - headGroups.length - tailGroups.length).fill("0");
  const prefix = [...headGroups, ...zeros, ...tailGroups].slice(0, 4);
  return `${prefix.map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}

/** An attempt that passed the limits and is counted as a failure until signInSucceeded says otherwise. */
export interface SignInAttempt {
  account: string;
  network: string;
  /** The block this attempt set on its network's counter, and the one it replaced. */
  networkBlock: { blockedUntil: number; previousBlockedUntil: number };
}

/**
 * Counts a sign-in attempt as failed before its password is checked; throws 429 RATE_LIMITED, with
 * the seconds to wait, when an applicable counter says it must wait (and then counts nothing).
 */
export async function beginSignInAttempt(
  db: Database,
  input: { organizationSlug: string; normalisedEmail: string; clientAddress: string },
  now: number,
): Promise<SignInAttempt> {
  const account = `${input.organizationSlug}:${input.normalisedEmail}`;
  const network = clientNetwork(input.clientAddress);
  const attempt = await db.transaction(async (tx) => {
    const [own, accountWide, networkWide] = await lockSignInCounters(tx, [
      { account, network },
      { account, network: "" },
      { account: "", network },
    ]);
    const known = own!.lastSuccessAt !== null && own!.lastSuccessAt > now - SIGN_IN_LIMITS.knownNetworkMs;
    const counters = [
      { counter: own!, allowance: SIGN_IN_LIMITS.accountNetworkAllowance, applies: true },
      { counter: accountWide!, allowance: SIGN_IN_LIMITS.accountAllowance, applies: !known },
      { counter: networkWide!, allowance: SIGN_IN_LIMITS.networkAllowance, applies: !known },
    ];
    const blockedUntil = Math.max(0, ...counters.filter((c) => c.applies).map((c) => c.counter.blockedUntil));
    if (blockedUntil > now) throw tooManyAttempts(blockedUntil - now);

    const blocks: number[] = [];
    for (const { counter, allowance } of counters) {
      const failures = recentFailures(counter, now) + 1;
      const delay = signInDelayMs(failures, allowance);
      const block = Math.max(counter.blockedUntil, delay > 0 ? now + delay : 0);
      await setSignInFailures(tx, counter, { failures, lastFailureAt: now, blockedUntil: block });
      blocks.push(block);
    }
    // The network's counter is the third: a success gives back the block this attempt set there.
    return {
      account,
      network,
      networkBlock: { blockedUntil: blocks[2]!, previousBlockedUntil: networkWide!.blockedUntil },
    };
  });
  // Counters left with nothing to remember are swept now and then by whoever passes.
  if (Math.random() < 0.01) {
    await sweepSignInCounters(db, {
      now,
      failuresSince: now - SIGN_IN_LIMITS.forgetFailuresAfterMs,
      successesSince: now - SIGN_IN_LIMITS.knownNetworkMs,
    });
  }
  return attempt;
}

/**
 * The attempt's password was right: the account's failures are cleared (from this network and from
 * everywhere), the network becomes known to the account, and the failure counted in advance on the
 * network's counter is taken back (that counter is not the account's to clear).
 */
export async function signInSucceeded(db: Database, attempt: SignInAttempt, now: number): Promise<void> {
  await db.transaction(async (tx) => {
    await resetSignInCounters(tx, { account: attempt.account, network: attempt.network, now });
    await uncountSignInFailure(tx, { account: "", network: attempt.network }, attempt.networkBlock);
  });
}

function recentFailures(counter: SignInCounter, now: number): number {
  const forgotten =
    counter.lastFailureAt === null || counter.lastFailureAt <= now - SIGN_IN_LIMITS.forgetFailuresAfterMs;
  return forgotten ? 0 : counter.failures;
}

function tooManyAttempts(waitMs: number): Failure {
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new Failure("RATE_LIMITED", `Too many failed sign-in attempts; retry in ${retryAfterSeconds} s`, {
    retryAfterSeconds,
  });
}
