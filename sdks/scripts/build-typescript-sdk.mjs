// Builds a TypeScript SDK package (@guard/server, @guard/js): dist/esm (ES modules) and dist/cjs
// (CommonJS), each with its own .d.ts files, from one source with two tsc runs of the package's own
// tsconfig (so @guard/js keeps its DOM-only library: a Node API in its source fails its build). A
// package.json in each folder tells Node (and TypeScript) which module format the .js files there
// are, so one `exports` map serves `import` and `require`.
//
// The packages' sources import, by relative path, code they share with something else in the
// repository, so the tests and the type check run that one copy:
//   - contract/src/canonical/: the canonical forms (audit hash, webhook signature, capture artefact),
//     the modules the server itself runs;
//   - sdks/typescript-shared/src/: the transport both packages use (retry decisions, the error tree's
//     core, one call's attempts).
// A published package cannot reach outside itself, so tsc compiles a staged copy of src/: each
// shared module it imports (and the ones those import, which must stay inside the same folder) is
// copied under src/<folder's name in the package>/ and the imports are pointed there. Any other
// import leaving src/ fails the build.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The folders a package's source may import from, and where each lands inside the package. */
const SHARED_FOLDERS = [
  { dir: path.join(repoRoot, "contract/src/canonical"), inPackage: "canonical" },
  { dir: path.join(repoRoot, "sdks/typescript-shared/src"), inPackage: "shared" },
];

// `import … from "./x.js"`, `export … from "./x.js"` and `import "./x.js"`: relative specifiers only.
const RELATIVE_IMPORT = /(\bfrom\s*|\bimport\s*)(["'])(\.{1,2}\/[^"']+)\2/g;

const isInside = (dir, file) => !path.relative(dir, file).startsWith("..");
const sourceOf = (specifierTarget) => specifierTarget.replace(/\.js$/, ".ts");
const asSpecifier = (fromDir, target) => {
  const relative = path.relative(fromDir, target).split(path.sep).join("/");
  return relative.startsWith(".") ? relative : `./${relative}`;
};

/** Copies the shared module `file` of `folder`, and the modules of that folder it imports, into the staged package. */
function stageSharedModule(file, folder, stagedSrc, staged) {
  if (staged.has(file)) return;
  if (!isInside(folder.dir, file) || !fs.existsSync(file)) {
    throw new Error(`${file}: a module of ${folder.dir} may only import modules of that folder`);
  }
  staged.add(file);
  const text = fs.readFileSync(file, "utf8");
  for (const [, , , specifier] of text.matchAll(RELATIVE_IMPORT)) {
    stageSharedModule(sourceOf(path.resolve(path.dirname(file), specifier)), folder, stagedSrc, staged);
  }
  const target = path.join(stagedSrc, folder.inPackage, path.relative(folder.dir, file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, text);
}

/** A copy of the package's src/ that imports nothing outside itself; returns its tsconfig. */
function stage(root, stagingRoot) {
  const src = path.join(root, "src");
  const stagedSrc = path.join(stagingRoot, "src");
  for (const folder of SHARED_FOLDERS) {
    if (fs.existsSync(path.join(src, folder.inPackage))) {
      throw new Error(`src/${folder.inPackage}/ is where the build puts the modules of ${folder.dir}`);
    }
  }
  fs.cpSync(src, stagedSrc, { recursive: true });
  const staged = new Set();
  for (const name of fs.readdirSync(stagedSrc, { recursive: true, encoding: "utf8" })) {
    if (!name.endsWith(".ts")) continue;
    const stagedFile = path.join(stagedSrc, name);
    const originalDir = path.dirname(path.join(src, name));
    const text = fs.readFileSync(stagedFile, "utf8");
    const rewritten = text.replace(RELATIVE_IMPORT, (whole, keyword, quote, specifier) => {
      const target = path.resolve(originalDir, specifier);
      if (isInside(src, target)) return whole;
      const folder = SHARED_FOLDERS.find((candidate) => isInside(candidate.dir, target));
      if (!folder) throw new Error(`src/${name} imports ${specifier}, outside src/ and the shared folders`);
      stageSharedModule(sourceOf(target), folder, stagedSrc, staged);
      const inPackage = path.join(stagedSrc, folder.inPackage, path.relative(folder.dir, target));
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
        // The package's own tsconfig only type-checks: src/ reaches into the shared folders there.
        noEmit: false,
        rootDir: "src",
        // The staging folder has no node_modules of its own to find @types/node in (for a package
        // whose tsconfig names it; one with `types: []` still gets none).
        typeRoots: [path.dirname(path.dirname(require.resolve("@types/node/package.json")))],
      },
      include: ["src"],
    }),
  );
  return tsconfig;
}

function compile(tsconfig, outDir, extraArgs) {
  execFileSync(process.execPath, [tsc, "-p", tsconfig, "--outDir", outDir, ...extraArgs], {
    // stdout → stderr: `npm pack --json` runs the build as prepack and its stdout must stay JSON.
    stdio: ["ignore", 2, 2],
  });
}

/** Builds the package at `root` (its src/ and tsconfig.json) into root/dist. */
export function buildTypescriptSdk(root) {
  const dist = path.join(root, "dist");
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "guard-sdk-build-"));
  try {
    const tsconfig = stage(root, staging);
    fs.rmSync(dist, { recursive: true, force: true });
    compile(tsconfig, path.join(dist, "esm"), []);
    compile(tsconfig, path.join(dist, "cjs"), ["--module", "CommonJS", "--moduleResolution", "Node10"]);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  fs.writeFileSync(path.join(dist, "esm", "package.json"), `${JSON.stringify({ type: "module" })}\n`);
  fs.writeFileSync(path.join(dist, "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
  console.error(`built ${path.relative(process.cwd(), dist) || dist} (esm + cjs)`);
}
