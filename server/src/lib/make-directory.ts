// mkdir -p that always returns. Node 20's `fs.mkdirSync(dir, { recursive: true })` never returns for
// a path under /proc (it retries the level the kernel refuses forever), so a mistyped
// GUARD_DATA_DIR hung the CLI. Made one level at a time, such a path fails with the error of the
// level that cannot be made (ENOENT), which the caller reports as a setting to fix.
import fs from "node:fs";
import path from "node:path";

/** Makes `dir` and its missing parents (each new level with `mode`); an existing `dir` is fine. */
export function makeDirectory(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let level = path.resolve(dir); !fs.existsSync(level); level = path.dirname(level)) {
    missing.unshift(level);
    if (path.dirname(level) === level) break;
  }
  for (const level of missing) {
    try {
      fs.mkdirSync(level, mode === undefined ? undefined : { mode });
    } catch (error) {
      // Another process made it meanwhile (two starts at once): that is what was asked for.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !fs.statSync(level).isDirectory())
        throw error;
    }
  }
}
