// `guard staff dsr|grievances|periods|sweep-clocks` end to end: requests filed over HTTP against a
// real `guard serve`, then worked from the command line (real processes, real database), with the
// same state-machine rules, exit codes and messages as elsewhere in the CLI.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";

type Listed = { requestId: string; type: string; status: string; dueState: string };

describe("guard staff (rights)", () => {
  let cli: CliEnvironment;
  let erasureId: string;
  let summaryId: string;
  let grievanceId: string;

  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    assert.equal((await cli.run(["org", "create", "--slug", "rights", "--name", "Rights Co"])).code, 0);
    const key = (await cli.run(["--json", "keys", "create", "--org", "rights", "--name", "backend"])).json<{
      key: string;
    }>().key;
    const orgId = (await cli.run(["--json", "staff", "periods", "--org", "rights"])).json<{
      organizationId: string;
    }>().organizationId;
    const server = await cli.serve();
    try {
      const call = async (path: string, auth: string, body: unknown) => {
        const res = await fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${auth}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        assert.ok(res.ok, `${path}: ${res.status} ${await res.clone().text()}`);
        return (await res.json()) as Record<string, string>;
      };
      const token = (await call("/api/v1/auth/broker-token", key, { externalId: "cli-user" })).accessToken!;
      erasureId = (await call("/api/v1/dsr", token, { organizationId: orgId, type: "erasure" })).requestId!;
      summaryId = (await call("/api/v1/dsr", token, { organizationId: orgId, type: "summary" })).requestId!;
      grievanceId = (
        await call("/api/v1/grievances", token, {
          organizationId: orgId,
          subject: "Spam",
          description: "SMS",
        })
      ).grievanceId!;
    } finally {
      await server.stop();
    }
  });
  after(() => cli.dispose());

  /** `guard staff <args> --org rights`. */
  const staff = (...args: string[]) => cli.run(["staff", ...args, "--org", "rights"]);
  /** The same with `--json`. */
  const staffJson = (...args: string[]) => cli.run(["--json", "staff", ...args, "--org", "rights"]);

  test("staff dsr list shows the queue and filters it", async () => {
    const all = await staffJson("dsr", "list");
    assert.equal(all.code, 0, all.stderr);
    const requests = all.json<{ requests: Listed[] }>().requests;
    assert.deepEqual(requests.map((r) => r.requestId).sort(), [erasureId, summaryId].sort());
    assert.ok(requests.every((r) => r.status === "pending" && r.dueState === "on_time"));

    const erasures = await staffJson("dsr", "list", "--type", "erasure");
    assert.deepEqual(
      erasures.json<{ requests: Listed[] }>().requests.map((r) => r.requestId),
      [erasureId],
    );
    const overdue = await staffJson("dsr", "list", "--overdue");
    assert.deepEqual(overdue.json(), { requests: [] });
    const beforeYear = await staffJson("dsr", "list", "--due-before", "2000-01-01");
    assert.deepEqual(beforeYear.json(), { requests: [] });

    const badType = await staff("dsr", "list", "--type", "deletion");
    assert.equal(badType.code, 2);
    assert.match(badType.stderr, /summary, processors, correction, erasure/);
    const badDate = await staff("dsr", "list", "--due-before", "someday");
    assert.equal(badDate.code, 2);
    const noOrg = await cli.run(["staff", "dsr", "list", "--org", "nope"]);
    assert.equal(noOrg.code, 1);
    assert.match(noOrg.stderr, /No organisation has the slug "nope"/);
  });

  test("staff dsr transition follows the state machine and records the CLI as the actor", async () => {
    const skip = await staff("dsr", "transition", "--id", erasureId, "--to", "completed");
    assert.equal(skip.code, 1);
    assert.match(skip.stderr, /INVALID_STATUS_TRANSITION/);

    const moved = await staffJson(
      "dsr",
      "transition",
      "--id",
      erasureId,
      "--to",
      "in_progress",
      "--reason",
      "identity checked by phone",
    );
    assert.equal(moved.code, 0, moved.stderr);
    assert.deepEqual(moved.json(), { requestId: erasureId, status: "in_progress", updated: true });

    const shown = await staffJson("dsr", "show", "--id", erasureId);
    const { request, transitions } = shown.json<{
      request: Listed;
      transitions: {
        from: string | null;
        to: string;
        actorKind: string;
        actorId: string;
        reason: string | null;
      }[];
    }>();
    assert.equal(request.status, "in_progress");
    assert.equal(transitions.at(-1)!.actorKind, "system");
    assert.match(transitions.at(-1)!.actorId, /^cli:/);
    assert.equal(transitions.at(-1)!.reason, "identity checked by phone");

    const unknown = await staff("dsr", "transition", "--id", "dsr_nope00000000", "--to", "in_progress");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /NOT_FOUND/);
    const badStatus = await staff("dsr", "transition", "--id", erasureId, "--to", "done");
    assert.equal(badStatus.code, 2);
    const badJson = await staff(
      "dsr",
      "transition",
      "--id",
      erasureId,
      "--to",
      "completed",
      "--response",
      "{not json",
    );
    assert.equal(badJson.code, 2);
  });

  test("staff dsr summary and deny answer the requests", async () => {
    const summary = await staffJson("dsr", "summary", "--id", summaryId);
    assert.equal(summary.code, 0, summary.stderr);
    assert.deepEqual(summary.json(), { requestId: summaryId, status: "completed", updated: true });
    const denial = ["--statute", "Companies Act, 2013", "--citation", "Section 128(5)"];
    const wrongType = await staff("dsr", "deny", "--id", summaryId, ...denial);
    assert.equal(wrongType.code, 1);
    assert.match(wrongType.stderr, /erasure requests only/);
    const denied = await staffJson("dsr", "deny", "--id", erasureId, ...denial);
    assert.equal(denied.code, 0, denied.stderr);
    const shown = await staffJson("dsr", "show", "--id", erasureId);
    assert.equal(shown.json<{ request: Listed }>().request.status, "rejected");
  });

  test("staff grievances list and respond", async () => {
    const listed = await staffJson("grievances", "list", "--status", "open");
    assert.deepEqual(
      listed.json<{ grievances: { grievanceId: string }[] }>().grievances.map((g) => g.grievanceId),
      [grievanceId],
    );
    const responded = await staffJson(
      "grievances",
      "respond",
      "--id",
      grievanceId,
      "--status",
      "resolved",
      "--response",
      "We stopped the SMS campaign for you.",
    );
    assert.equal(responded.code, 0, responded.stderr);
    const again = await staff(
      "grievances",
      "respond",
      "--id",
      grievanceId,
      "--status",
      "in_progress",
      "--response",
      "reopen",
    );
    assert.equal(again.code, 1);
    assert.match(again.stderr, /INVALID_STATUS_TRANSITION/);
    const shown = await staffJson("grievances", "show", "--id", grievanceId);
    const body = shown.json<{ grievance: { status: string; response: string }; transitions: unknown[] }>();
    assert.equal(body.grievance.status, "resolved");
    assert.equal(body.grievance.response, "We stopped the SMS campaign for you.");
    assert.equal(body.transitions.length, 3);
  });

  test("staff periods refuses more than 90 days; sweep-clocks runs; staff create is still there", async () => {
    const tooLong = await staff("periods", "--dsr-days", "120");
    assert.equal(tooLong.code, 1);
    assert.match(tooLong.stderr, /VALIDATION_ERROR.*90.*\(dsrResponseDays\)/);
    const set = await staffJson("periods", "--grievance-days", "15");
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(
      (({ dsrResponseDays, grievanceResponseDays }) => ({ dsrResponseDays, grievanceResponseDays }))(
        set.json<{ dsrResponseDays: number; grievanceResponseDays: number }>(),
      ),
      { dsrResponseDays: 30, grievanceResponseDays: 15 },
    );
    const sweep = await cli.run(["--json", "staff", "sweep-clocks"]);
    assert.equal(sweep.code, 0, sweep.stderr);
    assert.deepEqual(sweep.json(), { dueSoon: 0, overdue: 0 });
    const help = await cli.run(["staff", "--help"]);
    assert.match(help.stdout, /create/);
    assert.match(help.stdout, /dsr/);
    assert.match(help.stdout, /grievances/);
  });
});
