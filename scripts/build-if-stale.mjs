#!/usr/bin/env node
// Builds a front-end bundle only when its output is missing or older than any of its inputs, so
// `npm start` (prestart) and the browser test suites never serve a stale build and never rebuild a
// fresh one. Several test files may ask at once: one builds under a lock file, the others wait.
//
//   node scripts/build-if-stale.mjs dashboard [more targets...]
//   import { buildIfStale } from "../scripts/build-if-stale.mjs"; await buildIfStale("dashboard");
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * What each target builds from and into. `output` is a file the build always (re)writes last-ish,
 * whose modification time stands for the build's; `inputs` are files or folders (walked).
 */
export const TARGETS = {
  dashboard: {
    output: "dashboard/dist/index.html",
    inputs: [
      "dashboard/src",
      "dashboard/index.html",
      "dashboard/vite.config.ts",
      "dashboard/package.json",
      "contract/openapi/v1.yaml",
      // The banner preview bundles the hosted banner's own view code.
      "banner/src",
      "server/src/notices/languages.ts",
    ],
    command: [
      process.execPath,
      [path.join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"],
    ],
    cwd: "dashboard",
    lock: "dashboard/.build.lock",
  },
  banner: {
    output: "banner/dist/guard.js",
    inputs: [
      "banner/src",
      "banner/scripts",
      "banner/package.json",
      "sdks/js/src",
      "sdks/typescript-shared/src",
      "server/src/notices/languages.ts",
    ],
    command: [process.execPath, [path.join(ROOT, "banner/scripts/build.mjs")]],
    cwd: ".",
    lock: "banner/.build.lock",
  },
};

/** Newest modification time under `target` (a file or a folder), 0 when it does not exist. */
export function newestMtime(target) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file shows as a newer folder
  for (const entry of fs.readdirSync(target, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath ?? entry.path, entry.name);
    try {
      newest = Math.max(newest, fs.statSync(full).mtimeMs);
    } catch {
      // Removed while walking: its folder's time already counts.
    }
  }
  return newest;
}

export function isStale(name) {
  const target = TARGETS[name];
  if (!target) throw new Error(`unknown build target ${name} (known: ${Object.keys(TARGETS).join(", ")})`);
  const output = path.join(ROOT, target.output);
  if (!fs.existsSync(output)) return true;
  const built = fs.statSync(output).mtimeMs;
  return target.inputs.some((input) => newestMtime(path.join(ROOT, input)) > built);
}

/** Builds `name` when stale. Resolves true when it built, false when the build was fresh. */
export async function buildIfStale(name, { log = () => {}, timeoutMs = 180_000 } = {}) {
  const target = TARGETS[name];
  if (!isStale(name)) return false;
  const lock = path.join(ROOT, target.lock);
  const deadline = Date.now() + timeoutMs;
  while (isStale(name)) {
    let fd;
    try {
      fd = fs.openSync(lock, "wx");
    } catch {
      // Another process is building; a lock older than the deadline is a crashed builder's.
      if (Date.now() > deadline) fs.rmSync(lock, { force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      if (!isStale(name)) return false;
      log(`building ${name} (${target.output} is missing or older than its sources)`);
      const [cmd, args] = target.command;
      const built = spawnSync(cmd, args, { cwd: path.join(ROOT, target.cwd), encoding: "utf8" });
      if (built.status !== 0) {
        throw new Error(`${name} build failed (exit ${built.status}):\n${built.stdout}\n${built.stderr}`);
      }
      // The output's time stands for the build: make sure it is newer than every input read.
      const now = new Date();
      fs.utimesSync(path.join(ROOT, target.output), now, now);
      return true;
    } finally {
      fs.closeSync(fd);
      fs.rmSync(lock, { force: true });
    }
  }
  return false;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const names = process.argv.slice(2);
  if (names.length === 0) {
    console.error(
      `usage: node scripts/build-if-stale.mjs <target>... (targets: ${Object.keys(TARGETS).join(", ")})`,
    );
    process.exit(2);
  }
  try {
    for (const name of names) {
      const built = await buildIfStale(name, { log: (line) => console.log(line) });
      if (!built) console.log(`${name}: up to date`);
    }
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
