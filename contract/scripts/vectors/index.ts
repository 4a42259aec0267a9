// Every vector file of contract/vectors/, built from its family's fixed inputs. The entry script
// (contract/scripts/generate-vectors.ts) writes or checks them; contract/test/canonical.test.ts
// checks that they still reproduce the committed files.
import { existsSync, readFileSync } from "node:fs";
import { buildAuditHashVectors } from "./audit-hash.js";
import { buildCaptureArtifactVectors } from "./capture-artifact.js";
import { VECTORS_DIR, type JsonObject } from "./shared.js";
import { buildWebhookSignatureVectors } from "./webhook-signature.js";

export { VECTORS_DIR };

function readExisting(name: string): unknown {
  const path = VECTORS_DIR + name;
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as unknown) : undefined;
}

/** Every vector file, keyed by file name, as the builders produce it from the current files. */
export function buildAllVectors(options: { force?: boolean } = {}): Record<string, JsonObject> {
  return {
    "audit-hash.json": buildAuditHashVectors(),
    "webhook-signature.json": buildWebhookSignatureVectors(),
    "capture-artifact.json": buildCaptureArtifactVectors(readExisting("capture-artifact.json"), options),
  };
}
