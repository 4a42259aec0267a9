// Sign-in counters (accounts/sign-in-limits.ts decides what they mean): failed attempts and blocks
// per account, per client network and per (account, network), and the networks an account has
// signed in from. Rows are keyed by what was typed, not by a staff user, so an account that does
// not exist is counted exactly as one that does.
import type { Queryable } from "../../db/database.js";
import { execute, qb, rows, sql } from "../../db/query.js";

/** One counter: `account` '' counts a network at every account, `network` '' an account from everywhere. */
export interface SignInCounterKey {
  account: string;
  network: string;
}

export interface SignInCounter extends SignInCounterKey {
  failures: number;
  lastFailureAt: number | null;
  blockedUntil: number;
  lastSuccessAt: number | null;
}

/**
 * The counters of `keys`, created empty where missing and locked until the transaction ends, so
 * that concurrent attempts at the same counters decide one after another. Keys are locked in the
 * order given; callers give them in one fixed order, so two attempts cannot deadlock.
 */
export async function lockSignInCounters(tx: Queryable, keys: SignInCounterKey[]): Promise<SignInCounter[]> {
  const found = await rows(
    tx,
    qb
      .insertInto("sign_in_counters")
      .values(keys.map(({ account, network }) => ({ account, network })))
      // A no-op update rather than DO NOTHING: it locks the existing row and returns it.
      .onConflict((oc) =>
        oc.columns(["account", "network"]).doUpdateSet({ failures: sql<number>`sign_in_counters.failures` }),
      )
      .returning(["account", "network", "failures", "last_failure_at", "blocked_until", "last_success_at"]),
  );
  return keys.map((key) => {
    const row = found.find((r) => r.account === key.account && r.network === key.network)!;
    return {
      ...key,
      failures: row.failures,
      lastFailureAt: row.last_failure_at,
      blockedUntil: row.blocked_until,
      lastSuccessAt: row.last_success_at,
    };
  });
}

/** Records a failed attempt on a counter locked by lockSignInCounters. */
export async function setSignInFailures(
  tx: Queryable,
  key: SignInCounterKey,
  counts: { failures: number; lastFailureAt: number; blockedUntil: number },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("sign_in_counters")
      .set({
        failures: counts.failures,
        last_failure_at: counts.lastFailureAt,
        blocked_until: counts.blockedUntil,
      })
      .where("account", "=", key.account)
      .where("network", "=", key.network),
  );
}

/** A success at (account, network): the account's failures are cleared and the network is known. */
export async function resetSignInCounters(
  tx: Queryable,
  input: { account: string; network: string; now: number },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("sign_in_counters")
      .set({ failures: 0, blocked_until: 0 })
      .where("account", "=", input.account)
      .where("network", "=", ""),
  );
  await execute(
    tx,
    qb
      .updateTable("sign_in_counters")
      .set({ failures: 0, blocked_until: 0, last_success_at: input.now })
      .where("account", "=", input.account)
      .where("network", "=", input.network),
  );
}

/**
 * Takes back one failure counted in advance on a counter shared with other accounts, and the block
 * it set (`blockedUntil` back to `previousBlockedUntil`) unless another failure has moved it since.
 */
export async function uncountSignInFailure(
  tx: Queryable,
  key: SignInCounterKey,
  block: { blockedUntil: number; previousBlockedUntil: number },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("sign_in_counters")
      .set({
        failures: sql<number>`GREATEST(failures - 1, 0)`,
        blocked_until: sql<number>`CASE WHEN blocked_until = ${block.blockedUntil} THEN ${block.previousBlockedUntil}::bigint ELSE blocked_until END`,
      })
      .where("account", "=", key.account)
      .where("network", "=", key.network),
  );
}

/** Deletes counters that no longer hold anything: no block, no failure since `failuresSince`, no success since `successesSince`. */
export async function sweepSignInCounters(
  db: Queryable,
  input: { now: number; failuresSince: number; successesSince: number },
): Promise<void> {
  await execute(
    db,
    qb
      .deleteFrom("sign_in_counters")
      .where("blocked_until", "<=", input.now)
      .where((eb) =>
        eb.or([eb("last_failure_at", "is", null), eb("last_failure_at", "<", input.failuresSince)]),
      )
      .where((eb) =>
        eb.or([eb("last_success_at", "is", null), eb("last_success_at", "<", input.successesSince)]),
      ),
  );
}
