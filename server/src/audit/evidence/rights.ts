// Rights evidence (rights/history.ts writes it): every move of a DSR, grievance or nomination is a
// rights_transitions row and a `<kind>.transition` chain entry carrying the move's id, the record's
// principal, statuses and actor (and, on a filing, the DSR type and the deadline). Checked here:
// - entry -> row: the move's row exists and holds the entry's subject, statuses, actor and time;
// - row -> entry: every rights_transitions row has its entry;
// - state: every dsr_requests, grievances and nominations row is the state its moves in the chain
//   give (principal, status, filing time, deadline and the period it came from, closing time, DSR
//   type, last response, revocation), and has at least its filing entry. Free text (reasons,
//   details, responses) never goes on the chain and erasure redacts it, so it is not compared.
// Entries written before moves carried `principalId` have none: a record is held to the principal
// its entries name from the first one that names it, and a record none of whose entries names one
// (filed and last moved before the upgrade) is not compared on its principal. Once one move of the
// organisation's chain names its principal, every later move must (every writer now does), so
// dropping the field from an entry and rehashing the chain is itself reported.
import { presentDsrIds, scanStoredDsr } from "../../rights/store/dsr.js";
import { presentGrievanceIds, scanStoredGrievances } from "../../rights/store/grievances.js";
import { presentNominationIds, scanNominationStates } from "../../rights/store/nominations.js";
import {
  scanTransitions,
  transitionsWithIds,
  type AuditedTransition,
} from "../../rights/store/transitions.js";
import { DAY_MS } from "../../rights/settings.js";
import { DSR_TERMINAL, GRIEVANCE_TERMINAL } from "../../rights/state-machines.js";
import { differences } from "../findings.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import {
  bySubject,
  checkEntriesAgainstRows,
  payloadOf,
  type CheckContext,
  type EvidenceKind,
} from "./checker.js";

const KINDS = ["dsr", "grievance", "nomination"] as const;
type Kind = (typeof KINDS)[number];
const TRANSITION_TYPES = KINDS.map((kind) => `${kind}.transition`);

/** The table of each kind's records. */
const SUBJECT_TABLE: Record<Kind, string> = {
  dsr: "dsr_requests",
  grievance: "grievances",
  nomination: "nominations",
};

/** The columns of a move's row that its chain entry commits to. */
function committedMove(entry: StoredAuditEntry): Record<string, unknown> {
  const payload = payloadOf(entry);
  return {
    subject_kind: entry.entryType.slice(0, -".transition".length),
    subject_id: entry.subjectId,
    from_status: payload.from ?? null,
    to_status: payload.to ?? null,
    actor_kind: payload.actorKind ?? null,
    actor_id: payload.actorId ?? null,
    occurred_at: entry.createdAt,
  };
}

function storedMove(row: AuditedTransition): Record<string, unknown> {
  return {
    subject_kind: row.subjectKind,
    subject_id: row.subjectId,
    from_status: row.from,
    to_status: row.to,
    actor_kind: row.actorKind,
    actor_id: row.actorId,
    occurred_at: row.at,
  };
}

/**
 * The principal the moves name, or a reason when they name more than one. Undefined when none
 * names one (entries written before moves carried it): the principal is then not compared.
 */
function principalOf(
  moves: readonly StoredAuditEntry[],
  payloads: readonly Record<string, unknown>[],
): { principalId: string | undefined } | { broken: string } {
  let named: { principalId: string; seq: number } | undefined;
  for (const [i, payload] of payloads.entries()) {
    const { principalId } = payload;
    if (typeof principalId !== "string") continue;
    if (named === undefined) named = { principalId, seq: moves[i]!.seq };
    else if (named.principalId !== principalId) {
      return {
        broken: `its moves in the chain name different principals (${named.principalId} at seq ${named.seq}, ${principalId} at seq ${moves[i]!.seq})`,
      };
    }
  }
  return { principalId: named?.principalId };
}

/** The response period (whole days) that produced the filing's deadline, or null without one. */
function periodOf(filing: StoredAuditEntry, payload: Record<string, unknown>): number | null {
  return typeof payload.dueAt === "number" ? (payload.dueAt - filing.createdAt) / DAY_MS : null;
}

/** The time of the first move into one of `statuses`, or null. */
function firstMoveInto(moves: readonly StoredAuditEntry[], statuses: readonly string[]): number | null {
  const move = moves.find((m) => statuses.includes(String(payloadOf(m).to)));
  return move?.createdAt ?? null;
}

/**
 * The columns of a record that its moves in the chain commit to, or a reason when the moves do not
 * form a history (no filing first, or a move that does not start where the previous one ended).
 */
function replay(
  kind: Kind,
  moves: readonly StoredAuditEntry[],
): { expected: Record<string, unknown> } | { broken: string } {
  const filing = moves[0];
  if (!filing) return { broken: "the record has no entry in the audit chain" };
  const payloads = moves.map(payloadOf);
  if (payloads[0]!.from !== null)
    return { broken: "its history in the chain does not start with its creation" };
  for (let i = 1; i < payloads.length; i += 1) {
    if (payloads[i]!.from !== payloads[i - 1]!.to) {
      return { broken: `its move at seq ${moves[i]!.seq} does not start where the previous one ended` };
    }
  }
  const principal = principalOf(moves, payloads);
  if ("broken" in principal) return principal;
  const owner = principal.principalId === undefined ? {} : { principal_id: principal.principalId };
  const status = payloads[payloads.length - 1]!.to;
  switch (kind) {
    case "dsr":
      return {
        expected: {
          ...owner,
          status,
          type: payloads[0]!.type ?? null,
          created_at: filing.createdAt,
          due_at: payloads[0]!.dueAt ?? null,
          response_period_days: periodOf(filing, payloads[0]!),
          closed_at: firstMoveInto(moves, DSR_TERMINAL),
        },
      };
    case "grievance": {
      const responses = moves.filter((_, i) => payloads[i]!.responded === true);
      return {
        expected: {
          ...owner,
          status,
          created_at: filing.createdAt,
          due_at: payloads[0]!.dueAt ?? null,
          response_period_days: periodOf(filing, payloads[0]!),
          closed_at: firstMoveInto(moves, GRIEVANCE_TERMINAL),
          responded_at: responses[responses.length - 1]?.createdAt ?? null,
        },
      };
    }
    case "nomination":
      return {
        expected: {
          ...owner,
          status,
          created_at: filing.createdAt,
          revoked_at: firstMoveInto(moves, ["revoked"]),
        },
      };
  }
}

const PRESENT: Record<Kind, typeof presentDsrIds> = {
  dsr: presentDsrIds,
  grievance: presentGrievanceIds,
  nomination: presentNominationIds,
};

/** One page of a kind's records, as the columns the chain commits to, keyed by id. */
async function scanRecords(
  context: CheckContext,
  kind: Kind,
  after: string,
): Promise<{ id: string; stored: Record<string, unknown> }[]> {
  const { db, organizationId, pageSize } = context;
  switch (kind) {
    case "dsr":
      return (await scanStoredDsr(db, organizationId, after, pageSize)).map((r) => ({
        id: r.requestId,
        stored: {
          principal_id: r.principalId,
          status: r.status,
          type: r.type,
          created_at: r.createdAt,
          due_at: r.dueAt,
          response_period_days: r.responsePeriodDays,
          closed_at: r.closedAt,
        },
      }));
    case "grievance":
      return (await scanStoredGrievances(db, organizationId, after, pageSize)).map((r) => ({
        id: r.grievanceId,
        stored: {
          principal_id: r.principalId,
          status: r.status,
          created_at: r.createdAt,
          due_at: r.dueAt,
          response_period_days: r.responsePeriodDays,
          closed_at: r.closedAt,
          responded_at: r.respondedAt,
        },
      }));
    case "nomination":
      return (await scanNominationStates(db, organizationId, after, pageSize)).map((r) => ({
        id: r.nominationId,
        stored: {
          principal_id: r.principalId,
          status: r.status,
          created_at: r.createdAt,
          revoked_at: r.revokedAt,
        },
      }));
  }
}

export const rightsEvidence: EvidenceKind = {
  tables: ["rights_transitions", ...KINDS.map((kind) => SUBJECT_TABLE[kind])],
  entryTypes: TRANSITION_TYPES,
  start(context) {
    const { db, organizationId, findings } = context;
    /** The first move (chain position) that named its principal; every later move must too. */
    let principalNamedSince: number | null = null;

    /** A move names its record's principal, as every move since the first that did does. */
    function checkPrincipalNamed(entry: StoredAuditEntry): void {
      const { principalId } = payloadOf(entry);
      const problem = (reason: string) =>
        findings.add({ table: "audit_entries", recordId: `seq ${entry.seq}`, seq: entry.seq, reason });
      if (typeof principalId === "string") {
        principalNamedSince ??= entry.seq;
      } else if (principalId !== undefined) {
        problem("the move's principalId is not a string");
      } else if (principalNamedSince !== null) {
        problem(
          `the move of ${entry.subjectId} names no principalId, though every move since seq ${principalNamedSince} does`,
        );
      }
    }

    async function checkEntries(entries: readonly StoredAuditEntry[]): Promise<void> {
      for (const entry of entries) checkPrincipalNamed(entry);
      await checkEntriesAgainstRows(findings, entries, {
        idField: "transitionId",
        table: "rights_transitions",
        noun: "the move",
        load: async (ids) =>
          new Map((await transitionsWithIds(db, organizationId, ids)).map((row) => [row.transitionId, row])),
        stored: storedMove,
        committed: committedMove,
      });
      // The record each filing created must still exist (its later state is checked from the rows).
      for (const kind of KINDS) {
        const filings = entries.filter(
          (e) => e.entryType === `${kind}.transition` && payloadOf(e).from === null,
        );
        const present = await PRESENT[kind](
          db,
          organizationId,
          filings.map((e) => e.subjectId),
        );
        for (const filing of filings.filter((e) => !present.has(e.subjectId))) {
          findings.add({
            table: SUBJECT_TABLE[kind],
            recordId: filing.subjectId,
            seq: filing.seq,
            reason: "the record whose creation the chain recorded is missing",
          });
        }
      }
    }

    /** Every move has its entry (looked up by the moves' subjects, a page at a time). */
    async function checkMoves(): Promise<void> {
      let after = "";
      for (;;) {
        const moves = await scanTransitions(db, organizationId, after, context.pageSize);
        if (moves.length === 0) return;
        after = moves[moves.length - 1]!.transitionId;
        context.checked("rights_transitions", moves.length);
        const entries = await chainEntriesAbout(
          db,
          organizationId,
          [...new Set(moves.map((m) => m.subjectId))],
          TRANSITION_TYPES,
        );
        const chained = new Set(entries.map((e) => `${e.entryType}/${String(payloadOf(e).transitionId)}`));
        for (const move of moves) {
          if (!chained.has(`${move.subjectKind}.transition/${move.transitionId}`)) {
            findings.add({
              table: "rights_transitions",
              recordId: move.transitionId,
              seq: null,
              reason: `the move of ${move.subjectKind} ${move.subjectId} has no entry in the audit chain`,
            });
          }
        }
      }
    }

    /** Every record of `kind` is the state its moves in the chain give. */
    async function checkRecords(kind: Kind): Promise<void> {
      const table = SUBJECT_TABLE[kind];
      let after = "";
      for (;;) {
        const records = await scanRecords(context, kind, after);
        if (records.length === 0) return;
        after = records[records.length - 1]!.id;
        context.checked(table, records.length);
        const moves = bySubject(
          await chainEntriesAbout(
            db,
            organizationId,
            records.map((r) => r.id),
            [`${kind}.transition`],
          ),
        );
        for (const record of records) {
          const trail = moves.get(record.id) ?? [];
          const lastSeq = trail[trail.length - 1]?.seq ?? null;
          const problem = (reason: string) =>
            findings.add({ table, recordId: record.id, seq: lastSeq, reason });
          const replayed = replay(kind, trail);
          if ("broken" in replayed) {
            problem(replayed.broken);
            continue;
          }
          const differ = differences(record.stored, replayed.expected);
          if (differ.length > 0) problem(differ.join("; "));
        }
      }
    }

    return {
      entryTypes: TRANSITION_TYPES,
      checkEntries,
      async checkRows() {
        await checkMoves();
        for (const kind of KINDS) await checkRecords(kind);
      },
    };
  },
};
