// The served file and its manifest: what the server reads at start and the SRI snippet relies on.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { VERSION } from "../src/version.js";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

test("the build writes guard.js and a manifest whose sizes and hashes are the file's", () => {
  execFileSync(process.execPath, [path.join(root, "scripts", "build.mjs")], { stdio: "pipe" });
  const bytes = fs.readFileSync(path.join(root, "dist", "guard.js"));
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "dist", "manifest.json"), "utf8"));
  assert.deepEqual(Object.keys(manifest).sort(), [
    "bytes",
    "file",
    "gzipBytes",
    "integrity",
    "sha256",
    "version",
  ]);
  assert.equal(manifest.file, "guard.js");
  assert.equal(manifest.bytes, bytes.length);
  assert.equal(manifest.gzipBytes, zlib.gzipSync(bytes, { level: 9 }).length);
  assert.equal(manifest.sha256, crypto.createHash("sha256").update(bytes).digest("hex"));
  assert.equal(manifest.integrity, `sha384-${crypto.createHash("sha384").update(bytes).digest("base64")}`);
  assert.equal(manifest.version, VERSION);
  const text = bytes.toString("utf8");
  // The map is for debugging only: the served file must not make browsers fetch it.
  assert.doesNotMatch(text, /sourceMappingURL/);
  // A host CSP without 'unsafe-eval' must not be needed.
  assert.doesNotMatch(text, /\beval\(|new Function\(/);
  assert.ok(manifest.gzipBytes <= 15 * 1024, `gzipped ${manifest.gzipBytes} bytes, target 15 kB`);
});

test("the banner's version is its package.json version", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  assert.equal(VERSION, pkg.version);
});
