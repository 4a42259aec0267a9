// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with its own .d.ts files, from src/ with
// two tsc runs of the package's tsconfig. That tsconfig has the DOM library and no Node types, so a
// Node-only API in src/ fails the build instead of reaching a browser. A package.json in each folder
// tells Node (and TypeScript) which module format the .js files there are, so one `exports` map
// serves `import` and `require`.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const dist = path.join(root, "dist");

function compile(outDir, extraArgs) {
  execFileSync(
    process.execPath,
    [tsc, "-p", path.join(root, "tsconfig.json"), "--noEmit", "false", "--outDir", outDir, ...extraArgs],
    // stdout → stderr: `npm pack --json` runs this as prepack and its stdout must stay JSON.
    { stdio: ["ignore", 2, 2] },
  );
}

fs.rmSync(dist, { recursive: true, force: true });
compile(path.join(dist, "esm"), ["--rootDir", path.join(root, "src")]);
compile(path.join(dist, "cjs"), [
  "--rootDir",
  path.join(root, "src"),
  "--module",
  "CommonJS",
  "--moduleResolution",
  "Node10",
]);
fs.writeFileSync(path.join(dist, "esm", "package.json"), `${JSON.stringify({ type: "module" })}\n`);
fs.writeFileSync(path.join(dist, "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
console.error(`built ${path.relative(process.cwd(), dist) || dist} (esm + cjs)`);
