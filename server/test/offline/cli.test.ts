// `guard offline captures | links | pos | ivr` end to end: sessions synced over HTTP against a real
// `guard serve` by a device enrolled with `guard devices enroll`, a QR link, point-of-sale
// requests and IVR artefacts made with the service key; then the staff side from the command line with the staff
// routes' rules, each change recorded as made by `cli:<OS user>`, and the chain intact afterwards.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../src/config.js";
import { resolveConsentNotice } from "../../src/consent/consents.js";
import { DEMO_NOTICE } from "../../src/demo/seed.js";
import { createPosRequest, posDeps } from "../../src/offline/pos/requests.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { sessionFor, sign, type TestDevice, type UnsignedSession } from "./captures/support.js";

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
  let linkId: string;
  let posRequests: string[];
  /** The IVR artefacts reported, accepted first, with the withdrawal code the caller heard. */
  let ivrCalls: { artifactId: string; withdrawalToken?: string }[];
  let apiKeyId: string;
  let noticeId: string;

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
    const created = (await cli.run(["--json", "keys", "create", "--org", "clinic", "--name", "fleet"])).json<{
      apiKeyId: string;
      key: string;
    }>();
    const key = created.key;
    apiKeyId = created.apiKeyId;
    noticeId = notice.noticeId;
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

      const post = async (url: string, body: unknown) => {
        const answer = await fetch(`${server.url}${url}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        assert.equal(answer.status, 201, await answer.clone().text());
        return (await answer.json()) as Record<string, string>;
      };
      linkId = (
        await post("/api/v1/offline-consent/links", {
          noticeId: notice.noticeId,
          purpose: "Marketing",
          dataTypes: ["email"],
          label: "Ward 4 poster",
        })
      ).linkId!;
      posRequests = [];
      for (const phone of ["9876543210", "9123456780"]) {
        const body = { noticeId: notice.noticeId, purpose: "Marketing", dataTypes: ["phone"], phone };
        posRequests.push((await post("/api/v1/offline/pos", body)).requestId!);
      }
      ivrCalls = [];
      for (const [call, dtmfSequence] of [
        ["call-accepted", "1"],
        ["call-refused", "0"],
      ]) {
        const answer = await post("/api/v1/offline/ivr", {
          noticeId: notice.noticeId,
          partnerCallId: call,
          audioRecordingUri: `https://recordings.partner.example/${call}.wav`,
          locale: "en",
          dtmfSequence,
          callerNumberHash: `sha256:${call}`,
          capturedAt: Date.now(),
          partnerSignature: "partner-sig",
          purpose: "Marketing",
          dataTypes: ["phone"],
        });
        ivrCalls.push({ artifactId: answer.artifactId!, withdrawalToken: answer.withdrawalToken });
      }
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
  });

  test("links: list with their counts, disable once, filter by status", async () => {
    type Link = { linkId: string; label: string | null; disabledBy: string | null; acceptedCount: number };
    const links = (...args: string[]) => cli.run(["--json", "offline", "links", ...args, "--org", "clinic"]);
    const all = (await links("list")).json<{ links: Link[] }>().links;
    assert.deepEqual(
      all.map((l) => [l.linkId, l.label, l.acceptedCount]),
      [[linkId, "Ward 4 poster", 0]],
    );
    const disabled = await links("disable", linkId);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.match(disabled.json<Link>().disabledBy ?? "", /^cli:/);
    const again = await links("disable", linkId);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /CONFLICT: The link was already disabled/);
    assert.match((await links("disable", "lnk_nope")).stderr, /NOT_FOUND/);
    assert.deepEqual((await links("list", "--status", "active")).json(), { links: [] });
    assert.equal((await links("list", "--status", "disabled")).json<{ links: Link[] }>().links.length, 1);
    assert.equal((await links("list", "--status", "gone")).code, 2);
  });

  test("pos: the expired queue by default; an unanswered request past its deadline closes with a note", async () => {
    type Request = { requestId: string; status: string; closedBy: string | null; closeNote: string | null };
    const pos = (...args: string[]) => cli.run(["--json", "offline", "pos", ...args, "--org", "clinic"]);
    const listed = async (...args: string[]) => {
      const res = await pos("list", ...args);
      assert.equal(res.code, 0, res.stderr);
      return res.json<{ requests: Request[] }>().requests.map((r) => r.requestId);
    };
    assert.deepEqual(await listed(), [], "nothing has expired yet");
    assert.deepEqual((await listed("--status", "pending")).sort(), [...posRequests].sort());

    const early = await pos("close", posRequests[1]!, "--note", "Customer left");
    assert.equal(early.code, 1);
    assert.match(early.stderr, /CONFLICT: Only an expired request can be closed; this one is pending/);

    // A till asked 73 hours ago and no server has run the sweep since: closing finds it expired.
    const config = loadConfig({ ...process.env, ...cli.env });
    const stale = await cli.withDatabase((db) =>
      db.transaction(async (tx) => {
        const created = await createPosRequest(
          tx,
          posDeps(config),
          {
            organizationId: device.organizationId,
            apiKeyId,
            notice: await resolveConsentNotice(tx, device.organizationId, noticeId, "Marketing"),
            dataTypes: ["phone"],
            phone: "9000000001",
          },
          Date.now() - 73 * 3_600_000,
        );
        return created.request.requestId;
      }),
    );
    assert.deepEqual(await listed(), [], "not swept: still pending in the list");
    const closed = await pos("close", stale, "--note", "Called the customer back");
    assert.equal(closed.code, 0, closed.stderr);
    const request = closed.json<Request>();
    assert.equal(request.status, "closed");
    assert.match(request.closedBy ?? "", /^cli:/);
    assert.equal(request.closeNote, "Called the customer back");
    assert.deepEqual(await listed("--status", "closed"), [stale]);
    assert.match((await pos("close", stale, "--note", "again")).stderr, /CONFLICT/);
    assert.match((await pos("close", posRequests[1]!, "--note", " ")).stderr, /VALIDATION_ERROR: .*\(note\)/);
    assert.equal((await cli.run(["offline", "pos", "close", posRequests[1]!, "--org", "clinic"])).code, 2);
  });

  test("ivr: the artefacts as stored, newest first, filtered by outcome or call; never the withdrawal code", async () => {
    type Artifact = {
      artifactId: string;
      partnerCallId: string;
      accepted: boolean;
      consentId: string | null;
      receivedAt: number;
    };
    const ivr = async (...args: string[]) => {
      const res = await cli.run(["--json", "offline", "ivr", "list", ...args, "--org", "clinic"]);
      assert.equal(res.code, 0, res.stderr);
      assert.ok(!res.stdout.includes(ivrCalls[0]!.withdrawalToken!), "the withdrawal code is not printed");
      return res.json<{ artifacts: Artifact[] }>().artifacts;
    };
    const [accepted, refused] = ivrCalls.map((c) => c.artifactId);
    const all = await ivr();
    // Newest receipt first, then by id (two calls may be received in the same millisecond).
    const newestFirst = [...all].sort(
      (a, b) => b.receivedAt - a.receivedAt || (a.artifactId < b.artifactId ? 1 : -1),
    );
    assert.deepEqual(all, newestFirst);
    assert.deepEqual(
      all.map((a) => [a.artifactId, a.partnerCallId, a.accepted, a.consentId !== null]).sort(),
      [
        [accepted, "call-accepted", true, true],
        [refused, "call-refused", false, false],
      ].sort(),
    );
    assert.deepEqual(
      (await ivr("--outcome", "accepted")).map((a) => a.artifactId),
      [accepted],
    );
    assert.deepEqual(
      (await ivr("--outcome", "refused")).map((a) => a.artifactId),
      [refused],
    );
    assert.deepEqual(
      (await ivr("--call", "call-accepted")).map((a) => a.artifactId),
      [accepted],
    );
    assert.deepEqual(await ivr("--call", "nobody"), []);
    const bad = await cli.run(["offline", "ivr", "list", "--outcome", "maybe", "--org", "clinic"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /accepted, refused/);
  });

  test("every change above is on the chain, and it verifies", async () => {
    const verify = await cli.run(["--json", "audit", "verify", "--org", "clinic"]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal(verify.json<{ intact: boolean }>().intact, true);
  });
});
