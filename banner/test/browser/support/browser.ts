// Chromium for the browser tests: Debian's build through playwright-core (never a download), and the
// banner bundle rebuilt when its sources are newer than it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const BANNER = path.join(ROOT, "banner");
const BUNDLE = path.join(BANNER, "dist/guard.js");

export const chromiumPath = process.env.GUARD_CHROMIUM || "/usr/bin/chromium";

/**
 * The `skip` option of the browser suites: a reason when Chromium is missing on a developer's
 * machine, but never on CI, where a missing browser must fail the run rather than pass it silently.
 */
export const browserSkip: string | false =
  fs.existsSync(chromiumPath) || process.env.CI
    ? false
    : `no Chromium at ${chromiumPath} (set GUARD_CHROMIUM)`;

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(chromiumPath))
    throw new Error(`no Chromium at ${chromiumPath}: install Debian's chromium or set GUARD_CHROMIUM`);
  return chromium.launch({ executablePath: chromiumPath });
}

/** Newest modification time of the files under `dir` (0 when it does not exist). */
function newestMtime(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

const stale = () =>
  !fs.existsSync(BUNDLE) ||
  fs.statSync(BUNDLE).mtimeMs <
    Math.max(newestMtime(path.join(BANNER, "src")), newestMtime(path.join(ROOT, "sdks/js/src")));

/**
 * Builds `banner/dist` when it is missing or older than the banner's (or @guard/js's) sources. Test
 * files run in parallel, so one builds under a lock file while the others wait for it.
 */
export async function ensureBannerBuilt(): Promise<void> {
  const lock = path.join(BANNER, ".build.lock");
  const deadline = Date.now() + 120_000;
  while (stale()) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(lock, "wx");
    } catch {
      // Another test file is building; a lock older than the deadline is a crashed builder's.
      if (Date.now() > deadline) fs.rmSync(lock, { force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      if (!stale()) return;
      const built = spawnSync(process.execPath, [path.join(BANNER, "scripts/build.mjs")], {
        cwd: ROOT,
        encoding: "utf8",
      });
      if (built.status !== 0)
        throw new Error(`banner build failed (${built.status}):\n${built.stdout}\n${built.stderr}`);
      return;
    } finally {
      fs.closeSync(fd);
      fs.rmSync(lock, { force: true });
    }
  }
}
