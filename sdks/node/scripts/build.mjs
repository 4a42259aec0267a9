// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with its own .d.ts files, from one
// source with two tsc runs. A package.json in each folder tells Node (and TypeScript) which module
// format the .js files there are, so one `exports` map serves `import` and `require`.
//
// The audit hash and the webhook checks are the contract's own modules (contract/src/canonical/),
// which src/ imports by relative path, so the tests and the type check run the code the server runs.
// A published package cannot reach outside itself, and the contract package is private, so tsc
// compiles a staged copy of src/: the contract modules it imports (and theirs) are copied to
// src/canonical/ and the imports are pointed there. Any other import leaving src/ fails the build.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");
const dist = path.join(root, "dist");
const src = path.join(root, "src");
const contractCanonical = path.resolve(root, "../../contract/src/canonical");
/** Where the contract's modules sit inside the package. */
const STAGED_CANONICAL = "canonical";

// `import … from "./x.js"`, `export … from "./x.js"` and `import "./x.js"`: relative specifiers only.
const RELATIVE_IMPORT = /(\bfrom\s*|\bimport\s*)(["'])(\.{1,2}\/[^"']+)\2/g;

const isInside = (dir, file) => !path.relative(dir, file).startsWith("..");
const sourceOf = (specifierTarget) => specifierTarget.replace(/\.js$/, ".ts");
const asSpecifier = (fromDir, target) => {
  const relative = path.relative(fromDir, target).split(path.sep).join("/");
  return relative.startsWith(".") ? relative : `./${relative}`;
};

/** Copies the contract module `file` and the canonical modules it imports into `stagedDir`. */
function stageContractModule(file, stagedDir, staged) {
  if (staged.has(file)) return;
  if (!isInside(contractCanonical, file) || !fs.existsSync(file)) {
    throw new Error(`${file}: the SDK may only use modules of ${contractCanonical}`);
  }
  staged.add(file);
  const text = fs.readFileSync(file, "utf8");
  for (const [, , , specifier] of text.matchAll(RELATIVE_IMPORT)) {
    stageContractModule(sourceOf(path.resolve(path.dirname(file), specifier)), stagedDir, staged);
  }
  fs.writeFileSync(path.join(stagedDir, path.relative(contractCanonical, file)), text);
}

/** A copy of src/ that imports nothing outside itself; returns its tsconfig. */
function stage(stagingRoot) {
  const stagedSrc = path.join(stagingRoot, "src");
  const stagedCanonical = path.join(stagedSrc, STAGED_CANONICAL);
  if (fs.existsSync(path.join(src, STAGED_CANONICAL))) {
    throw new Error(`src/${STAGED_CANONICAL}/ is where the build puts the contract's modules`);
  }
  fs.cpSync(src, stagedSrc, { recursive: true });
  fs.mkdirSync(stagedCanonical);
  const staged = new Set();
  for (const name of fs.readdirSync(stagedSrc, { recursive: true, encoding: "utf8" })) {
    if (!name.endsWith(".ts")) continue;
    const stagedFile = path.join(stagedSrc, name);
    const originalDir = path.dirname(path.join(src, name));
    const text = fs.readFileSync(stagedFile, "utf8");
    const rewritten = text.replace(RELATIVE_IMPORT, (whole, keyword, quote, specifier) => {
      const target = path.resolve(originalDir, specifier);
      if (isInside(src, target)) return whole;
      stageContractModule(sourceOf(target), stagedCanonical, staged);
      const inPackage = path.join(stagedCanonical, path.relative(contractCanonical, target));
      return `${keyword}${quote}${asSpecifier(path.dirname(stagedFile), inPackage)}${quote}`;
    });
    if (rewritten !== text) fs.writeFileSync(stagedFile, rewritten);
  }
  // Under NodeNext the nearest package.json decides whether a .ts file is an ES module, as src/'s does.
  fs.writeFileSync(path.join(stagingRoot, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
  const tsconfig = path.join(stagingRoot, "tsconfig.json");
  fs.writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: path.join(root, "tsconfig.json"),
      compilerOptions: {
        // The package's own tsconfig only type-checks: src/ reaches into contract/ there.
        noEmit: false,
        rootDir: "src",
        // The staging folder has no node_modules of its own to find @types/node in.
        typeRoots: [path.dirname(path.dirname(require.resolve("@types/node/package.json")))],
      },
      include: ["src"],
    }),
  );
  return tsconfig;
}

function compile(tsconfig, outDir, extraArgs) {
  execFileSync(process.execPath, [tsc, "-p", tsconfig, "--outDir", outDir, ...extraArgs], {
    // stdout → stderr: `npm pack --json` runs this as prepack and its stdout must stay JSON.
    stdio: ["ignore", 2, 2],
  });
}

const staging = fs.mkdtempSync(path.join(os.tmpdir(), "guard-sdk-build-"));
try {
  const tsconfig = stage(staging);
  fs.rmSync(dist, { recursive: true, force: true });
  compile(tsconfig, path.join(dist, "esm"), []);
  compile(tsconfig, path.join(dist, "cjs"), ["--module", "CommonJS", "--moduleResolution", "Node10"]);
} finally {
  fs.rmSync(staging, { recursive: true, force: true });
}
fs.writeFileSync(path.join(dist, "esm", "package.json"), `${JSON.stringify({ type: "module" })}\n`);
fs.writeFileSync(path.join(dist, "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
console.error(`built ${path.relative(process.cwd(), dist) || dist} (esm + cjs)`);
