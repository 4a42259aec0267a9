// kill -9 under write load: a real `guard serve` process takes concurrent idempotent writes (consent
// capture and DSR filing, each with its own Idempotency-Key) and is killed with SIGKILL mid-load,
// several times. After each restart every write that got no answer is retried with the SAME key and
// body. At the end: every acknowledged write is stored exactly once, every retry was answered with
// one record, and no write was stored twice.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Database } from "../server/src/db/database.js";
import { assertOneUnforkedChain } from "../server/test/support/audit-chain.js";
import { createDeployment, type GuardDeployment, type GuardProcess } from "./support/guard-process.js";
import { call, TransportError } from "./support/http.js";
import { bearer, brokerToken } from "./support/live-server.js";

const KILLS = 3;
const LANES = 8;
/**
 * Each kill comes once this many writes (a random number in the range) were acknowledged since the
 * start, so the load is under way whatever the machine's speed; MAX_ROUND_MS caps a stalled round.
 */
const ACKS_BEFORE_KILL: [number, number] = [40, 80];
const MAX_ROUND_MS = 60_000;

type Kind = "consent" | "dsr";

interface Write {
  kind: Kind;
  externalId: string;
  idempotencyKey: string;
  /** The record id of the 201 answer, once one came back. */
  recordId?: string;
  attempts: number;
  token?: string;
}

/**
 * The audit chain after the kills: nothing left queued (each start's sequencer linked what a killed
 * process had queued, the last stop what was left), one unforked chain (positions 1..n, each link
 * and hash recomputed), every record's entry linked exactly once and none missing.
 */
async function assertEveryEntryLinkedOnce(db: Database, organizationId: string): Promise<void> {
  const [queued] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM audit_queue WHERE organization_id = $1",
    [organizationId],
  );
  assert.equal(queued!.n, 0, "no audit entry is left queued");
  await assertOneUnforkedChain(db, organizationId);
  const unchained = await db.query<{ event_id: string }>(
    `SELECT e.event_id FROM consent_events e
      WHERE e.organization_id = $1 AND NOT EXISTS (
        SELECT 1 FROM audit_entries a WHERE a.organization_id = e.organization_id AND a.entry_ref = e.audit_ref)`,
    [organizationId],
  );
  assert.deepEqual(unchained, [], "every consent event's entry is on the chain");
  const [dsrMoves] = await db.query<{ filed: number; chained: number }>(
    `SELECT (SELECT count(*)::int FROM dsr_requests WHERE organization_id = $1) AS filed,
            (SELECT count(DISTINCT subject_id)::int FROM audit_entries
              WHERE organization_id = $1 AND entry_type = 'dsr.transition') AS chained`,
    [organizationId],
  );
  assert.equal(dsrMoves!.chained, dsrMoves!.filed, "every DSR's filing is on the chain");
}

describe("kill -9 under write load", () => {
  let deployment: GuardDeployment;
  let server: GuardProcess;
  let demo: { organizationId: string; noticeId: string; apiKey: string };
  const writes: Write[] = [];
  /** Writes sent at least once whose answer never came back. */
  const unanswered = new Set<Write>();
  let killedInFlight = 0;
  /** Retries answered as a replay: the killed process had committed them before dying. */
  let replayed = 0;

  before(async () => {
    deployment = await createDeployment();
    server = await deployment.start();
    assert.ok(server.demo, "first start seeds the demo organisation");
    demo = server.demo;
  });
  after(async () => {
    await server?.kill("SIGKILL");
    await deployment?.dispose();
  });

  /** One attempt of a write; true when it was answered 201 (original or replay). */
  async function attempt(write: Write, url: string): Promise<boolean> {
    write.attempts++;
    try {
      write.token ??= await brokerToken(
        { call: (path, options) => call(url, path, options) },
        demo.apiKey,
        write.externalId,
        `${write.externalId}@example.com`,
      );
      const res =
        write.kind === "consent"
          ? await call(url, "/cm/v1/consent", {
              method: "POST",
              headers: { ...bearer(demo.apiKey), "idempotency-key": write.idempotencyKey },
              body: {
                email: `${write.externalId}@example.com`,
                noticeId: demo.noticeId,
                purpose: "Account",
                dataTypes: ["email"],
              },
            })
          : await call(url, "/api/v1/dsr", {
              method: "POST",
              headers: { ...bearer(write.token), "idempotency-key": write.idempotencyKey },
              body: { organizationId: demo.organizationId, type: "summary" },
            });
      assert.equal(res.status, 201, `${write.kind} ${write.idempotencyKey}: ${res.text}`);
      const body = res.json<{ consentId?: string; requestId?: string }>();
      const id = write.kind === "consent" ? body.consentId : body.requestId;
      assert.ok(id, `${write.kind} answer carries its id`);
      if (write.recordId !== undefined) assert.equal(id, write.recordId, "a replay answers the same record");
      if (write.attempts > 1 && res.headers["idempotent-replayed"] === "true") replayed++;
      write.recordId = id;
      unanswered.delete(write);
      return true;
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      unanswered.add(write);
      return false;
    }
  }

  /** LANES concurrent writers (retries first) until `acks` answers came, then SIGKILL mid-load. */
  async function loadThenKill(target: GuardProcess, acks: number): Promise<void> {
    let stopped = false;
    let answered = 0;
    let enough: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (enough = resolve));
    const retries = [...unanswered];
    const lane = async () => {
      while (!stopped) {
        const write = retries.shift() ?? newWrite();
        if (await attempt(write, target.url)) {
          if (++answered >= acks) enough();
        } else if (stopped) {
          killedInFlight++;
        }
      }
    };
    const lanes = Promise.all(Array.from({ length: LANES }, lane));
    // The cap's timer is cancelled once the round ends: left pending, it would hold the test
    // process open for up to MAX_ROUND_MS after the last test.
    const roundOver = new AbortController();
    const capped = sleep(MAX_ROUND_MS, undefined, { signal: roundOver.signal }).catch(() => undefined);
    await Promise.race([reached, capped]);
    roundOver.abort();
    stopped = true;
    await target.kill("SIGKILL");
    await lanes;
  }

  function newWrite(): Write {
    const n = writes.length;
    const write: Write = {
      kind: n % 2 === 0 ? "consent" : "dsr",
      externalId: `kill9-user-${n}`,
      idempotencyKey: `kill9-key-${n}`,
      attempts: 0,
    };
    writes.push(write);
    return write;
  }

  test(`${KILLS} SIGKILLs mid-load: 0 acknowledged writes lost, 0 duplicates after retry`, async () => {
    for (let round = 0; round < KILLS; round++) {
      const [low, high] = ACKS_BEFORE_KILL;
      await loadThenKill(server, low + Math.floor(Math.random() * (high - low)));
      server = await deployment.start();
    }
    // Last start: retry everything left unanswered, with no kill.
    for (const write of [...unanswered]) {
      assert.ok(await attempt(write, server.url), `retry of ${write.idempotencyKey} was answered`);
    }
    assert.equal(unanswered.size, 0);
    assert.ok(killedInFlight > 0, "some writes were in flight when the process was killed");
    // A floor against a vacuous run; the rounds' targets are met unless the machine is starved.
    assert.ok(writes.length >= 30, `only ${writes.length} writes were made`);
    await server.kill("SIGTERM");

    const db: Database = await deployment.openDatabase();
    try {
      const consents = await db.query<{ external_id: string; consent_id: string }>(
        `SELECT p.external_id, c.consent_id FROM consents c
           JOIN principals p ON p.organization_id = c.organization_id AND p.principal_id = c.principal_id
          WHERE c.organization_id = $1 AND p.external_id LIKE 'kill9-user-%'`,
        [demo.organizationId],
      );
      const dsrs = await db.query<{ external_id: string; request_id: string }>(
        `SELECT p.external_id, d.request_id FROM dsr_requests d
           JOIN principals p ON p.organization_id = d.organization_id AND p.principal_id = d.principal_id
          WHERE d.organization_id = $1 AND p.external_id LIKE 'kill9-user-%'`,
        [demo.organizationId],
      );
      const stored = new Map<string, string[]>();
      for (const row of [
        ...consents.map((r) => [r.external_id, r.consent_id]),
        ...dsrs.map((r) => [r.external_id, r.request_id]),
      ]) {
        stored.set(row[0]!, [...(stored.get(row[0]!) ?? []), row[1]!]);
      }
      const lost: string[] = [];
      const duplicated: string[] = [];
      for (const write of writes) {
        const records = stored.get(write.externalId) ?? [];
        if (!records.includes(write.recordId!)) lost.push(`${write.idempotencyKey} (${write.recordId})`);
        if (records.length > 1) duplicated.push(`${write.idempotencyKey}: ${records.join(", ")}`);
      }
      assert.deepEqual(lost, [], "acknowledged writes missing after the kills");
      assert.deepEqual(duplicated, [], "writes stored more than once");
      assert.equal(stored.size, writes.length, "no record exists that no write asked for");
      await assertEveryEntryLinkedOnce(db, demo.organizationId);
      const retried = writes.filter((w) => w.attempts > 1).length;
      console.log(
        `kill -9: ${writes.length} writes, ${KILLS} kills, ${killedInFlight} in flight at a kill, ${retried} retried (${replayed} answered as replays); 0 lost, 0 duplicated`,
      );
    } finally {
      await db.close();
    }
  });
});
