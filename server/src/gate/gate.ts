// The Consent Gate: may processing that depends on a consent go ahead? The answer comes from the
// consent's own state (withdrawn_at), and every answer is durably logged before it is returned.
// Hot path (bench/README.md): verifications are grouped (lib/group-commit.ts) and each group is one
// statement (store.ts) that reads the consents by primary key and logs their decisions: one round
// trip and one commit for many verifications. The log keeps one row per run (an organisation's and
// key's decisions in one group, gate_decision_runs), which compaction moves within seconds into
// blocks of up to ten seconds of decisions (gate_decision_blocks, migration 0107).
import type { Queryable } from "../db/database.js";
import { keysetPage, pageInMemory, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import {
  decideAndLogGroup,
  decisionIdOf,
  logDecisionRun,
  newRunNonce,
  newestDecisions,
  repeatedDenials,
  type StoredDecision,
} from "./store.js";

export type GateDecision = "allow" | "deny";
export type GateReason = "consent_active" | "consent_withdrawn";

export interface GateDecisionRecord {
  decisionId: string;
  consentId: string;
  apiKeyId: string;
  decision: GateDecision;
  reason: GateReason;
  decidedAt: number;
}

export interface VerifyInput {
  organizationId: string;
  consentId: string;
  apiKeyId: string;
  /** False while the organisation has switched decision recording off: decide, log nothing. */
  record: boolean;
}

export interface VerifyOutcome {
  decision: GateDecision;
  reason: GateReason;
  /** Set when the decision was logged. */
  decisionId: string | undefined;
}

/**
 * Decides and logs a group of verifications, all with the decision time `decidedAt`: one
 * statement (and so one transaction), and a second one only when a run to log holds a consent
 * that was not found. Each consent is read by primary key within its caller's organisation.
 * Answers are in input order; undefined where the organisation has no such consent (404 to that
 * caller, nothing logged). When this resolves, every logged decision has committed.
 */
export async function verifyConsents(
  db: Queryable,
  inputs: readonly VerifyInput[],
  decidedAt: number,
): Promise<(VerifyOutcome | undefined)[]> {
  // Each organisation's and key's verifications contiguous (arrival order within them), so that
  // each run to log is one slice of the lists. A group usually holds one key: nothing moves.
  const order = inputs.map((_, index) => index);
  const head = inputs[0];
  if (
    inputs.some((input) => input.organizationId !== head?.organizationId || input.apiKeyId !== head.apiKeyId)
  ) {
    order.sort((a, b) => {
      const [x, y] = [inputs[a] as VerifyInput, inputs[b] as VerifyInput];
      if (x.organizationId !== y.organizationId) return x.organizationId < y.organizationId ? -1 : 1;
      if (x.apiKeyId !== y.apiKeyId) return x.apiKeyId < y.apiKeyId ? -1 : 1;
      return a - b;
    });
  }
  const sorted = order.map((index) => inputs[index] as VerifyInput);
  const runs = {
    organizationIds: [] as string[],
    nonces: [] as string[],
    first: [] as number[],
    last: [] as number[],
    apiKeyIds: [] as string[],
  };
  const nonceHexes: string[] = [];
  // The run (index into `runs`) each position belongs to, or -1 when not recorded.
  const runOf: number[] = [];
  sorted.forEach((input, position) => {
    if (!input.record) {
      runOf.push(-1);
      return;
    }
    const previous = position > 0 ? sorted[position - 1] : undefined;
    if (
      previous?.record &&
      previous.organizationId === input.organizationId &&
      previous.apiKeyId === input.apiKeyId
    ) {
      runs.last[runs.last.length - 1] = position + 1;
    } else {
      const nonce = newRunNonce();
      runs.organizationIds.push(input.organizationId);
      runs.nonces.push(nonce.decimal);
      nonceHexes.push(nonce.hex);
      runs.first.push(position + 1);
      runs.last.push(position + 1);
      runs.apiKeyIds.push(input.apiKeyId);
    }
    runOf.push(runs.first.length - 1);
  });
  // A comma cannot be in an id, so no consent has one: such an id is sent as "" (which matches no
  // consent either) and its caller gets a 404, without shifting the rest of the list.
  const consentIds = sorted.map((input) => (input.consentId.includes(",") ? "" : input.consentId));
  const answers = await decideAndLogGroup(db, {
    organizationIds: sorted.map((input) => input.organizationId),
    consentIds,
    decidedAt,
    runs,
  });
  // The statement left out the runs that hold a 404; each is logged here without its 404s, under
  // the same nonce (its decisions are numbered among those logged, as their ids say).
  if (answers.includes(null)) {
    for (const [run, organizationId] of runs.organizationIds.entries()) {
      const indexes = range(runs.first[run] as number, runs.last[run] as number).map(
        (position) => position - 1,
      );
      const found = indexes.filter((index) => answers[index] != null);
      if (found.length === indexes.length || found.length === 0) continue;
      await logDecisionRun(db, organizationId, {
        decidedAt,
        nonce: runs.nonces[run] as string,
        apiKeyId: runs.apiKeyIds[run] as string,
        consentIds: found.map((index) => consentIds[index] as string),
        allowed: found.map((index) => answers[index] === true),
      });
    }
  }
  const outcomes: (VerifyOutcome | undefined)[] = inputs.map(() => undefined);
  // Each logged decision's position in its run, counting only the decisions logged.
  let positionInRun = 0;
  sorted.forEach((_input, position) => {
    const run = runOf[position] as number;
    if (run >= 0 && position + 1 === runs.first[run]) positionInRun = 0;
    const allowed = answers[position];
    if (allowed === null || allowed === undefined) return;
    const decisionId =
      run >= 0 ? decisionIdOf(decidedAt, nonceHexes[run] as string, (positionInRun += 1)) : undefined;
    // Literals of one shape, not a spread plus a key: V8 adds a key to a spread copy through its
    // slow path, and this runs for every decision.
    outcomes[order[position] as number] = {
      decision: allowed ? "allow" : "deny",
      reason: allowed ? "consent_active" : "consent_withdrawn",
      decisionId,
    };
  });
  return outcomes;
}

/** first, first + 1, …, last. */
const range = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => first + i);

export const DEFAULT_DECISION_LIMIT = 50;
export const MAX_DECISION_LIMIT = 200;

/** One page of the organisation's decisions, newest first; at most MAX_DECISION_LIMIT a page. */
export async function listDecisions(
  db: Queryable,
  organizationId: string,
  page: PageRequest,
): Promise<Page<GateDecisionRecord>> {
  const found = await keysetPage(
    page,
    {
      scope: pageScope("listConsentGateDecisions", organizationId),
      shape: ["number", "string"],
      keyOf: (d: StoredDecision): [number, string] => [d.decidedAt, d.decisionId],
      defaults: { size: DEFAULT_DECISION_LIMIT, max: MAX_DECISION_LIMIT },
    },
    (before, limit) => newestDecisions(db, organizationId, limit, before),
  );
  const items = found.items.map((d) => ({
    decisionId: d.decisionId,
    consentId: d.consentId,
    apiKeyId: d.apiKeyId,
    ...(d.allowed
      ? { decision: "allow" as const, reason: "consent_active" as const }
      : { decision: "deny" as const, reason: "consent_withdrawn" as const }),
    decidedAt: d.decidedAt,
  }));
  return { items, nextCursor: found.nextCursor };
}

export interface BypassAlert {
  consentId: string;
  denyCount: number;
  firstDeniedAt: number;
  lastDeniedAt: number;
}

/**
 * One page of the consents denied at least `denyThreshold` times within the last `windowMs`
 * (inclusive of now), most recently denied first (last denial, then consent id, both descending).
 * Derived from the decision log; stores nothing. The alerts are an aggregate computed per request,
 * so they are paged in memory: a consent denied again moves to the front, ahead of a walk in
 * progress, and is not shown twice.
 */
export async function listBypassAlerts(
  db: Queryable,
  organizationId: string,
  settings: { windowMs: number; denyThreshold: number },
  now: number,
  page: PageRequest = {},
): Promise<Page<BypassAlert>> {
  const denials = await repeatedDenials(db, organizationId, {
    after: now - settings.windowMs,
    until: now,
    minDenies: settings.denyThreshold,
  });
  const alerts = denials.map((d) => ({
    consentId: d.consentId,
    denyCount: d.denyCount,
    firstDeniedAt: d.firstAt,
    lastDeniedAt: d.lastAt,
  }));
  return pageInMemory(alerts, page, {
    scope: pageScope("listConsentGateBypassAlerts", organizationId),
    shape: ["number", "string"],
    keyOf: (a) => [a.lastDeniedAt, a.consentId],
    descending: true,
  });
}
