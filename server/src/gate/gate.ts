// The Consent Gate: may processing that depends on a consent go ahead? The answer comes from the
// consent's own state (withdrawn_at), and every answer is durably logged before it is returned.
// Hot path (bench/README.md): verifications are grouped (lib/group-commit.ts) and each group is one
// statement (store.ts) that reads the consents by primary key and logs their decisions: one round
// trip and one commit for many verifications. The log keeps one row per organisation per group
// (gate_decision_groups, migration 0040), its decisions as arrays.
import type { Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";
import { keysetPage, pageInMemory, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import {
  decideAndLogGroup,
  logDecisionRun,
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
  // Each organisation's verifications contiguous (arrival order within it), so that each run to
  // log is one slice of the arrays. A group usually holds one organisation: nothing moves.
  const order = inputs.map((_, index) => index);
  if (inputs.some((input) => input.organizationId !== inputs[0]?.organizationId)) {
    order.sort((a, b) => {
      const [x, y] = [(inputs[a] as VerifyInput).organizationId, (inputs[b] as VerifyInput).organizationId];
      return x < y ? -1 : x > y ? 1 : a - b;
    });
  }
  const sorted = order.map((index) => inputs[index] as VerifyInput);
  const decisionIds = sorted.map(() => newId("gdc"));
  const runs = { organizationIds: [] as string[], first: [] as number[], last: [] as number[] };
  sorted.forEach((input, position) => {
    if (!input.record) return;
    const previous = position > 0 ? sorted[position - 1] : undefined;
    if (previous?.record && previous.organizationId === input.organizationId) {
      runs.last[runs.last.length - 1] = position + 1;
    } else {
      runs.organizationIds.push(input.organizationId);
      runs.first.push(position + 1);
      runs.last.push(position + 1);
    }
  });
  // A comma cannot be in an id, so no consent has one: such an id is sent as "" (which matches no
  // consent either) and its caller gets a 404, without shifting the rest of the list.
  const consentIds = sorted.map((input) => (input.consentId.includes(",") ? "" : input.consentId));
  const apiKeyIds = sorted.map((input) => input.apiKeyId);
  const answers = await decideAndLogGroup(db, {
    organizationIds: sorted.map((input) => input.organizationId),
    consentIds,
    decisionIds,
    apiKeyIds,
    decidedAt,
    runs,
  });
  // The statement left out the runs that hold a 404; each is logged here without its 404s.
  if (answers.includes(null)) {
    for (const [run, organizationId] of runs.organizationIds.entries()) {
      const indexes = range(runs.first[run] as number, runs.last[run] as number).map(
        (position) => position - 1,
      );
      const found = indexes.filter((index) => answers[index] != null);
      if (found.length === indexes.length || found.length === 0) continue;
      const pick = <T>(values: readonly T[]) => found.map((index) => values[index] as T);
      await logDecisionRun(db, organizationId, {
        decidedAt,
        decisionIds: pick(decisionIds),
        consentIds: pick(consentIds),
        apiKeyIds: pick(apiKeyIds),
        allowed: pick(answers).map((allowed) => allowed === true),
      });
    }
  }
  const outcomes: (VerifyOutcome | undefined)[] = inputs.map(() => undefined);
  sorted.forEach((input, position) => {
    const allowed = answers[position];
    if (allowed === null || allowed === undefined) return;
    // Literals of one shape, not a spread plus a key: V8 adds a key to a spread copy through its
    // slow path, and this runs for every decision.
    outcomes[order[position] as number] = {
      decision: allowed ? "allow" : "deny",
      reason: allowed ? "consent_active" : "consent_withdrawn",
      decisionId: input.record ? decisionIds[position] : undefined,
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
