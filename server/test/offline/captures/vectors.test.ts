// The 30 dpdpcca/2 golden vectors (contract/vectors/capture-artifact.json) through the server's own
// verification path (offline/captures/verify.ts): the canonical string it builds, the artefact
// errors it rejects as invalid_session, and its node:crypto check with the cached key objects. The
// contract's reference verifier must agree on every case, so the cache changes nothing.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import { verifyCaptureSignature, type CaptureArtifactSession } from "@guard/contract";
import {
  artefactOf,
  verifyDeviceSignature,
  verifyDeviceSignatureInPool,
} from "../../../src/offline/captures/verify.js";

interface VectorCase {
  id: string;
  input: { session: CaptureArtifactSession; publicKey?: string; signature?: string };
  canonical?: string;
  canonicalUtf8Hex?: string;
  result: "valid" | "invalid";
  error?: { code: string; field: string };
}

const vectors = JSON.parse(
  readFileSync(
    createRequire(import.meta.url).resolve("@guard/contract/vectors/capture-artifact.json"),
    "utf8",
  ),
) as {
  numberOfCases: number;
  testKeys: Record<string, { publicKeySpkiBase64: string }>;
  cases: VectorCase[];
};

/** The server's view of a vector's key: an enrolled device of the session's organisation. */
function deviceFor(session: CaptureArtifactSession, keyName: string) {
  const spki = vectors.testKeys[keyName]!.publicKeySpkiBase64;
  return {
    organizationId: session.organizationId,
    deviceId: session.deviceId,
    keyFingerprint: createHash("sha256").update(spki).digest("hex"),
    publicKeySpki: spki,
  };
}

describe("dpdpcca/2 vectors through the server's verifier", () => {
  test("all 30 cases are present", () => {
    assert.equal(vectors.cases.length, 30);
    assert.equal(vectors.numberOfCases, 30);
  });

  for (const vector of vectors.cases) {
    test(`${vector.id}: ${vector.result}${vector.error ? ` (${vector.error.code} at ${vector.error.field})` : ""}`, async () => {
      const { organizationId, ...wire } = vector.input.session;
      const artefact = artefactOf(wire, organizationId);
      if (vector.error) {
        // Not an artefact: the server answers rejected / invalid_session, naming the field.
        assert.equal(artefact.ok, false, "must not canonicalise");
        if (!artefact.ok) {
          assert.equal(artefact.code, vector.error.code);
          assert.equal(artefact.field, vector.error.field);
        }
        return;
      }
      assert.ok(artefact.ok, "must canonicalise");
      if (!artefact.ok) return;
      assert.equal(artefact.canonical, vector.canonical);
      assert.equal(Buffer.from(artefact.canonical, "utf8").toString("hex"), vector.canonicalUtf8Hex);
      assert.equal(
        artefact.canonicalSha256,
        createHash("sha256").update(Buffer.from(vector.canonicalUtf8Hex!, "hex")).digest("hex"),
      );
      const device = deviceFor(vector.input.session, vector.input.publicKey!);
      const expected = vector.result === "valid";
      // Twice: the second call is served from the key cache and must answer the same.
      assert.equal(verifyDeviceSignature(device, artefact.canonical, vector.input.signature!), expected);
      assert.equal(verifyDeviceSignature(device, artefact.canonical, vector.input.signature!), expected);
      assert.equal(
        await verifyDeviceSignatureInPool(device, artefact.canonical, vector.input.signature!),
        expected,
        "the thread-pool form answers the same",
      );
      assert.equal(
        verifyCaptureSignature(device.publicKeySpki, artefact.canonical, vector.input.signature!),
        expected,
        "the contract's reference agrees",
      );
    });
  }
});
