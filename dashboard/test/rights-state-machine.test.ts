// The moves the rights pages offer (src/pages/rights/state-machine.ts) must be exactly the server's
// state machines (server/src/rights/state-machines.ts): offering fewer hides a legal action, more
// offers one the API refuses.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DSR_STATUSES as SERVER_DSR_STATUSES,
  DSR_TRANSITIONS,
  DSR_TYPES as SERVER_DSR_TYPES,
  GRIEVANCE_STATUSES as SERVER_GRIEVANCE_STATUSES,
  GRIEVANCE_TRANSITIONS,
} from "../../server/src/rights/state-machines.js";
import {
  DSR_STATUSES,
  DSR_TYPES,
  dsrActions,
  dsrNextStatuses,
  GRIEVANCE_STATUSES,
  grievanceNextStatuses,
  isDsrFinal,
} from "../src/pages/rights/state-machine.js";

describe("rights state machines in the dashboard", () => {
  test("statuses and types match the server's", () => {
    assert.deepEqual([...DSR_STATUSES], [...SERVER_DSR_STATUSES]);
    assert.deepEqual([...DSR_TYPES], [...SERVER_DSR_TYPES]);
    assert.deepEqual([...GRIEVANCE_STATUSES], [...SERVER_GRIEVANCE_STATUSES]);
  });

  test("the moves offered from each status are the server's table", () => {
    for (const status of DSR_STATUSES)
      assert.deepEqual([...dsrNextStatuses(status)], [...DSR_TRANSITIONS[status]]);
    for (const status of GRIEVANCE_STATUSES)
      assert.deepEqual([...grievanceNextStatuses(status)], [...GRIEVANCE_TRANSITIONS[status]]);
  });

  test("pending offers only in_progress; completed and rejected offer nothing", () => {
    assert.deepEqual(dsrNextStatuses("pending"), ["in_progress"]);
    assert.deepEqual(dsrNextStatuses("in_progress"), ["completed", "rejected"]);
    assert.equal(isDsrFinal("completed"), true);
    assert.equal(isDsrFinal("rejected"), true);
    assert.equal(isDsrFinal("in_progress"), false);
  });

  test("summary generation only for open summary requests, statutory denial only for open erasure ones", () => {
    assert.deepEqual(dsrActions({ type: "summary", status: "pending" }), {
      moves: ["in_progress"],
      generateSummary: true,
      statutoryDenial: false,
    });
    assert.equal(dsrActions({ type: "summary", status: "completed" }).generateSummary, false);
    assert.equal(dsrActions({ type: "erasure", status: "in_progress" }).statutoryDenial, true);
    assert.equal(dsrActions({ type: "erasure", status: "rejected" }).statutoryDenial, false);
    assert.equal(dsrActions({ type: "correction", status: "pending" }).generateSummary, false);
    assert.equal(dsrActions({ type: "correction", status: "pending" }).statutoryDenial, false);
  });
});
