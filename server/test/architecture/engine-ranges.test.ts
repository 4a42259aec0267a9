// The Node.js versions the README promises (the root package.json's `engines.node`) are the versions
// every locked dependency supports: a package whose own `engines.node` leaves out the lowest promised
// version (cookie@2 and content-disposition@3 want Node 22) makes `npm install` warn EBADENGINE and
// may not run there; so is one that leaves out a later version inside the range (eslint and vite
// support 20.19+, 22.13+ and 24+, not 21, 22.0-22.12 or 23). Fix by pinning a compatible version
// (`overrides` in the root package.json) or, when there is none, by narrowing the root range and
// the README's quote of it together.
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
  assert.ok(readme.includes(`\`${declared}\``), `README.md should quote engines.node \`${declared}\``);
});

/**
 * The first version of every minor release from 20.0 to 30.x that the root range admits: where a
 * dependency's range starts or stops (eslint's `^20.19.0 || ^22.13.0 || >=24`) is always a minor's
 * first version, so checking these checks the whole promised range, not just its lowest version.
 */
function promisedVersions(range: string): string[] {
  const versions: string[] = [];
  for (let major = 20; major <= 30; major++) {
    for (let minor = 0; minor <= 40; minor++) {
      const version = `${major}.${minor}.0`;
      if (semver.satisfies(version, range)) versions.push(version);
    }
  }
  return versions;
}

test("every locked package supports every Node.js version the root package.json declares", () => {
  const versions = promisedVersions(declared!);
  assert.ok(
    versions.includes(semver.minVersion(declared!)!.version),
    "the lowest declared version is checked",
  );
  const offenders = versions.flatMap((version) =>
    excluding(version).map((what) => `node ${version}: ${what}`),
  );
  assert.deepEqual(
    offenders,
    [],
    "locked packages that do not support a Node.js version the root range admits",
  );
});

test("every locked package supports the Node.js running this test, when the root range includes it", (t) => {
  const running = process.versions.node;
  if (!semver.satisfies(running, declared!)) {
    t.skip(`Node.js ${running} is outside engines.node ${declared}`);
    return;
  }
  assert.deepEqual(excluding(running), [], `locked packages that do not support Node.js ${running}`);
});
