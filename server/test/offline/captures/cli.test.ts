// `guard offline captures list | release | reject` end to end: sessions synced over HTTP against a
// real `guard serve` by a device enrolled with `guard devices enroll`, then reviewed from the
// command line with the staff routes' rules, the reviewer recorded as `cli:<OS user>`, and the
// chain intact afterwards.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { DEMO_NOTICE } from "../../../src/demo/seed.js";
import { createCliEnvironment, type CliEnvironment } from "../../support/cli-helpers.js";
import { sessionFor, sign, type TestDevice, type UnsignedSession } from "./support.js";

type Listed = {
  sessionId: string;
  clientSessionId: string;
  status: string;
  reason: string | null;
  reviewStatus: string | null;
  reviewedBy: string | null;
  reviewNote: string | null;
  consentIds: string[];
};

// The demo notice itemises Account, Marketing and Analytics.
const GRANTS: UnsignedSession["purposeGrants"] = [
  { purposeKey: "Account", purposeLabel: "Your account", category: "essential", status: "opt_in" },
  { purposeKey: "Marketing", purposeLabel: "Offers", category: "non_essential", status: "opt_in" },
  { purposeKey: "Analytics", purposeLabel: "Analytics", category: "non_essential", status: "opt_out" },
];

describe("guard offline captures", () => {
  let cli: CliEnvironment;
  let device: TestDevice;
  /** Guard's session id of each synced session, by its role in the test. */
  const sessions = new Map<"skewed" | "skewed2" | "forged" | "verified", string>();

  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    const org = await cli.run(["--json", "org", "create", "--slug", "clinic", "--name", "Clinic"]);
    assert.equal(org.code, 0, org.stderr);
    const organizationId = org.json<{ organizationId: string }>().organizationId;
    const noticeFile = path.join(cli.dataDir, "notice.json");
    fs.writeFileSync(noticeFile, JSON.stringify(DEMO_NOTICE));
    const published = await cli.run(["--json", "notice", "publish", "--org", "clinic", "--file", noticeFile]);
    assert.equal(published.code, 0, published.stderr);
    const notice = published.json<{ noticeId: string; version: number }>();
    const key = (await cli.run(["--json", "keys", "create", "--org", "clinic", "--name", "fleet"])).json<{
      key: string;
    }>().key;
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const publicKeySpki = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const enrolled = await cli.run([
      "--json",
      "devices",
      "enroll",
      "--org",
      "clinic",
      "--label",
      "Ward 4 tablet",
      "--channel",
      "agent_app",
      "--public-key",
      publicKeySpki,
    ]);
    assert.equal(enrolled.code, 0, enrolled.stderr);
    device = {
      organizationId,
      deviceId: enrolled.json<{ deviceId: string }>().deviceId,
      privateKey,
      publicKeySpki,
    };
    const forger = {
      ...device,
      privateKey: generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey,
    };

    const now = Date.now();
    const batch = {
      skewed: sign(device, sessionFor(device, notice, now, { capturedAtClient: 1, purposeGrants: GRANTS })),
      skewed2: sign(device, sessionFor(device, notice, now, { capturedAtClient: 2, purposeGrants: GRANTS })),
      forged: sign(forger, sessionFor(device, notice, now, { purposeGrants: GRANTS })),
      verified: sign(device, sessionFor(device, notice, now, { purposeGrants: GRANTS })),
    };
    const server = await cli.serve();
    try {
      const res = await fetch(`${server.url}/api/v1/offline/captures`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ sessions: Object.values(batch) }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      const { results } = (await res.json()) as { results: { status: string; reason?: string }[] };
      assert.deepEqual(
        results.map((r) => [r.status, r.reason]),
        [
          ["quarantined", "clock_skew"],
          ["quarantined", "clock_skew"],
          ["quarantined", "signature_mismatch"],
          ["verified", undefined],
        ],
      );
    } finally {
      await server.stop();
    }
    const listed = (await cli.run(["--json", "offline", "captures", "list", "--org", "clinic"])).json<{
      captures: Listed[];
    }>().captures;
    for (const [role, session] of Object.entries(batch)) {
      const found = listed.find((c) => c.clientSessionId === session.clientSessionId);
      assert.ok(found, role);
      sessions.set(role as "skewed", found.sessionId);
    }
  });
  after(() => cli.dispose());

  const captures = (...args: string[]) =>
    cli.run(["--json", "offline", "captures", ...args, "--org", "clinic"]);
  const listOf = async (...filters: string[]) => {
    const res = await captures("list", ...filters);
    assert.equal(res.code, 0, res.stderr);
    return res.json<{ captures: Listed[] }>().captures;
  };

  test("list filters as the staff route does: status, review state, device", async () => {
    assert.equal((await listOf()).length, 4);
    const quarantined = await listOf("--status", "quarantined");
    assert.deepEqual(
      quarantined.map((c) => c.sessionId).sort(),
      [sessions.get("skewed"), sessions.get("skewed2"), sessions.get("forged")].sort(),
    );
    assert.deepEqual(
      (await listOf("--status", "verified")).map((c) => c.sessionId),
      [sessions.get("verified")],
    );
    assert.equal((await listOf("--device", device.deviceId)).length, 4);

    const unknownDevice = await captures("list", "--device", "dev_00000000000000000000");
    assert.equal(unknownDevice.code, 1);
    assert.match(unknownDevice.stderr, /NOT_FOUND: No such device/);
    const badStatus = await captures("list", "--status", "lost");
    assert.equal(badStatus.code, 2);
    assert.match(badStatus.stderr, /verified, quarantined, rejected/);
  });

  test("release gives the consents and a withdrawal code; reject keeps the session as evidence; both once", async () => {
    const released = await captures("release", sessions.get("skewed")!, "--note", "Device clock was wrong");
    assert.equal(released.code, 0, released.stderr);
    const result = released.json<{ status: string; consentIds: string[]; withdrawalToken?: string }>();
    assert.equal(result.status, "verified");
    assert.equal(result.consentIds.length, 2, "Account and Marketing were opted in");
    assert.ok(result.withdrawalToken, "the withdrawal code, shown once");

    const rejected = await captures("reject", sessions.get("skewed2")!, "--note", "Not our form");
    assert.equal(rejected.code, 0, rejected.stderr);
    assert.equal(rejected.json<Listed>().reviewStatus, "rejected_by_staff");

    const reviewed = await listOf("--status", "quarantined");
    const bySession = new Map(reviewed.map((c) => [c.sessionId, c]));
    const releasedRow = bySession.get(sessions.get("skewed")!)!;
    assert.equal(releasedRow.reviewStatus, "released");
    assert.match(releasedRow.reviewedBy ?? "", /^cli:/);
    assert.equal(releasedRow.reviewNote, "Device clock was wrong");
    assert.deepEqual(releasedRow.consentIds, result.consentIds);
    assert.match(bySession.get(sessions.get("skewed2")!)!.reviewedBy ?? "", /^cli:/);
    assert.deepEqual(
      (await listOf("--status", "quarantined", "--review", "pending")).map((c) => c.sessionId),
      [sessions.get("forged")],
    );

    const again = await captures("release", sessions.get("skewed")!, "--note", "again");
    assert.equal(again.code, 1);
    assert.match(again.stderr, /CONFLICT: The session was already reviewed \(released\)/);
    const forged = await captures("release", sessions.get("forged")!, "--note", "Looks fine");
    assert.equal(forged.code, 1);
    assert.match(forged.stderr, /CONFLICT: A session quarantined as signature_mismatch cannot be released/);
    const blankNote = await captures("reject", sessions.get("forged")!, "--note", "   ");
    assert.equal(blankNote.code, 1);
    assert.match(blankNote.stderr, /VALIDATION_ERROR: .*\(note\)/);
    const noNote = await cli.run([
      "offline",
      "captures",
      "reject",
      sessions.get("forged")!,
      "--org",
      "clinic",
    ]);
    assert.equal(noNote.code, 2);
    assert.match(noNote.stderr, /--note/);
    const unknown = await captures("reject", "ocs_00000000000000000000", "--note", "x");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /NOT_FOUND/);

    // The reviews are on the chain with their reviewer, and it verifies.
    const verify = await cli.run(["--json", "audit", "verify", "--org", "clinic"]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal(verify.json<{ intact: boolean }>().intact, true);
  });
});
