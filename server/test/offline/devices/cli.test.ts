// `guard devices enroll | list | revoke` end to end: real processes on a real database (PGlite data
// directory, or a fresh PostgreSQL database), JSON output, exit codes, the same key rules as the
// staff route, a PEM or base64 key file, and the CLI's changes on the audit chain.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createCliEnvironment, type CliEnvironment } from "../../support/cli-helpers.js";

type Device = {
  deviceId: string;
  label: string;
  channel: string;
  publicKeySpki: string;
  keyFingerprint: string;
  enrolledBy: string;
  revokedAt: number | null;
  revokedBy: string | null;
  revocationReason: string | null;
};

const p256 = () => generateKeyPairSync("ec", { namedCurve: "prime256v1" }).publicKey;
const spkiBase64 = (key = p256()) => key.export({ type: "spki", format: "der" }).toString("base64");

describe("guard devices", () => {
  let cli: CliEnvironment;
  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    const org = await cli.run(["--json", "org", "create", "--slug", "clinic", "--name", "Clinic"]);
    assert.equal(org.code, 0, org.stderr);
  });
  after(() => cli.dispose());

  const enroll = (key: string, extra: string[] = []) =>
    cli.run([
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
      key,
      ...extra,
    ]);

  test("enroll prints the device (JSON with --json, indented without) and a note to check the fingerprint", async () => {
    const key = spkiBase64();
    const res = await enroll(key);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout.trim().split("\n").length, 1, "--json prints one line");
    const device = res.json<Device>();
    assert.match(device.deviceId, /^dev_/);
    assert.equal(device.publicKeySpki, key);
    assert.equal(device.channel, "agent_app");
    assert.match(device.enrolledBy, /^cli:/);
    assert.equal(device.revokedAt, null);
    assert.equal(res.stderr, "", "--json prints no notes");

    const human = await cli.run([
      "devices",
      "enroll",
      "--org",
      "clinic",
      "--label",
      "Front desk",
      "--channel",
      "qr",
      "--public-key",
      spkiBase64(),
    ]);
    assert.equal(human.code, 0, human.stderr);
    assert.ok(human.stdout.split("\n").length > 3, "indented for people");
    assert.match(human.stderr, /key fingerprint [0-9a-f]{64}/);

    const again = await enroll(key);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /CONFLICT: .*already enrolled/);
  });

  test("a key file may hold the base64 or a PEM block; bad keys and options fail with the route's message", async () => {
    const dir = fs.mkdtempSync(path.join(cli.dataDir, "keys-"));
    const pemKey = p256();
    const pemFile = path.join(dir, "device.pem");
    fs.writeFileSync(pemFile, pemKey.export({ type: "spki", format: "pem" }));
    const fromPem = await enroll(`@${pemFile}`);
    assert.equal(fromPem.code, 0, fromPem.stderr);
    assert.equal(fromPem.json<Device>().publicKeySpki, spkiBase64(pemKey));

    const b64File = path.join(dir, "device.b64");
    const b64Key = spkiBase64();
    fs.writeFileSync(b64File, `${b64Key}\n`);
    const fromB64 = await enroll(`@${b64File}`);
    assert.equal(fromB64.code, 0, fromB64.stderr);
    assert.equal(fromB64.json<Device>().publicKeySpki, b64Key);

    const k1 = generateKeyPairSync("ec", { namedCurve: "secp256k1" })
      .publicKey.export({ type: "spki", format: "der" })
      .toString("base64");
    const refused = await enroll(k1);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /VALIDATION_ERROR: .*secp256k1.*\(publicKeySpki\)/);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .publicKey.export({ type: "spki", format: "der" })
      .toString("base64");
    assert.match((await enroll(rsa)).stderr, /\(publicKeySpki\)/);
    assert.match((await enroll("garbage")).stderr, /\(publicKeySpki\)/);

    const missing = await enroll(`@${path.join(dir, "nope.pem")}`);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read the public key file/);

    const badChannel = await cli.run([
      "devices",
      "enroll",
      "--org",
      "clinic",
      "--label",
      "x",
      "--channel",
      "kiosk",
      "--public-key",
      spkiBase64(),
    ]);
    assert.equal(badChannel.code, 2);
    assert.match(badChannel.stderr, /qr, agent_app, pos, async_link, ivr/);
    const noKey = await cli.run(["devices", "enroll", "--org", "clinic", "--label", "x", "--channel", "qr"]);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /--public-key/);
    const unknownOrg = await cli.run([
      "devices",
      "enroll",
      "--org",
      "nope",
      "--label",
      "x",
      "--channel",
      "qr",
      "--public-key",
      spkiBase64(),
    ]);
    assert.equal(unknownOrg.code, 1);
    assert.match(unknownOrg.stderr, /No organisation has the slug "nope"/);
  });

  test("revoke, revoke again (exit 1, CONFLICT), list with --status, and the chain verifies", async () => {
    const device = (await enroll(spkiBase64())).json<Device>();
    const revoked = await cli.run([
      "--json",
      "devices",
      "revoke",
      device.deviceId,
      "--org",
      "clinic",
      "--reason",
      "Lost on the ward",
    ]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const after = revoked.json<Device>();
    assert.equal(after.revocationReason, "Lost on the ward");
    assert.match(after.revokedBy ?? "", /^cli:/);

    const twice = await cli.run([
      "devices",
      "revoke",
      device.deviceId,
      "--org",
      "clinic",
      "--reason",
      "again",
    ]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /CONFLICT: .*already revoked/);
    const unknown = await cli.run([
      "devices",
      "revoke",
      "dev_00000000000000000000",
      "--org",
      "clinic",
      "--reason",
      "x",
    ]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /NOT_FOUND/);
    const noReason = await cli.run(["devices", "revoke", device.deviceId, "--org", "clinic"]);
    assert.equal(noReason.code, 2);

    const all = (await cli.run(["--json", "devices", "list", "--org", "clinic"])).json<{
      devices: Device[];
    }>();
    assert.ok(all.devices.length >= 5);
    assert.equal(all.devices[0]!.deviceId, device.deviceId, "newest first");
    const revokedOnly = (
      await cli.run(["--json", "devices", "list", "--org", "clinic", "--status", "revoked"])
    ).json<{ devices: Device[] }>();
    assert.deepEqual(
      revokedOnly.devices.map((d) => d.deviceId),
      [device.deviceId],
    );
    const active = (
      await cli.run(["--json", "devices", "list", "--org", "clinic", "--status", "active"])
    ).json<{ devices: Device[] }>();
    assert.equal(active.devices.length, all.devices.length - 1);
    assert.ok(active.devices.every((d) => d.revokedAt === null));
    const badStatus = await cli.run(["devices", "list", "--org", "clinic", "--status", "lost"]);
    assert.equal(badStatus.code, 2);

    // The CLI links what it queued on close; the chain (with the device entries) verifies.
    const verify = await cli.run(["--json", "audit", "verify", "--org", "clinic"]);
    assert.equal(verify.code, 0, verify.stderr);
    const report = verify.json<{ intact: boolean; entries: number }>();
    assert.equal(report.intact, true);
    assert.ok(report.entries >= 6, `enrolments and the revocation are chain entries: ${report.entries}`);
  });
});
