// The Node.js versions the README promises (the root package.json's `engines.node`) are the versions
// every locked dependency supports: a package whose own `engines.node` leaves out the lowest promised
// version (cookie@2 and content-disposition@3 want Node 22) makes `npm install` warn EBADENGINE and
// may not run there. Fix by pinning a compatible version (`overrides` in the root package.json) or,
// when there is none, by raising the root range and the README together.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

interface Semver {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean;
  validRange(range: string): string | null;
}
// semver is fastify's own dependency, so it is always installed; it ships no types.
const semver = createRequire(import.meta.url)("semver") as Semver;

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
}

const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8")) as T;
const manifest = readJson<{ engines?: { node?: string } }>("package.json");
const lock = readJson<{ packages: Record<string, LockedPackage> }>("package-lock.json");

const declared = manifest.engines?.node;

/** Every locked package (workspaces included) whose engines.node leaves out `version`. */
function excluding(version: string): string[] {
  const offenders: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    // Very old manifests wrote engines as an array of strings; npm ignores those, and so do we.
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (where === "" || !range) continue;
    if (!semver.validRange(range) || !semver.satisfies(version, range, { includePrerelease: true })) {
      offenders.push(
        `${where.replace(/^.*node_modules\//, "") || where}@${entry.version ?? "?"} wants node ${range}`,
      );
    }
  }
  return offenders;
}

test("the root package.json declares the Node.js range the README promises", () => {
  assert.ok(declared && semver.validRange(declared), `engines.node is ${JSON.stringify(declared)}`);
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const minimum = semver.minVersion(declared)!.version;
  const [major, minor] = minimum.split(".");
  const promise = minor === "0" ? `Node.js ${major} or newer` : `Node.js ${major}.${minor} or newer`;
  assert.ok(readme.includes(promise), `README.md should say "${promise}" (engines.node ${declared})`);
});

test("every locked package supports the lowest Node.js version the root package.json declares", () => {
  const minimum = semver.minVersion(declared!)!.version;
  assert.deepEqual(excluding(minimum), [], `locked packages that do not support Node.js ${minimum}`);
});

test("every locked package supports the Node.js running this test, when the root range includes it", (t) => {
  const running = process.versions.node;
  if (!semver.satisfies(running, declared!)) {
    t.skip(`Node.js ${running} is outside engines.node ${declared}`);
    return;
  }
  assert.deepEqual(excluding(running), [], `locked packages that do not support Node.js ${running}`);
});
