#!/usr/bin/env node
// Runs TypeScript test files under `node --test` as JavaScript bundles: each file with the
// TypeScript it imports (ours, and @guard/contract's sources) in one module, packages loaded from
// node_modules as they are. A test process then loads a few modules instead of passing a few
// hundred through tsx's loader thread (figures in scripts/README.md, "Test files as bundles").
//
//   node scripts/bundled-tests.mjs [node --test options...] -- <file.test.ts>...
//
// Every file keeps its own `import.meta.url` (its source's URL), so whatever a test or module finds
// relative to itself (migrations, fixtures, bin/guard.js) is found as from the sources; processes a
// test starts with `--import tsx` run the sources as before. Stack traces point at the sources
// (linked source maps, --enable-source-maps). The bundles are written below .test-tmp/ (ignored by
// git) and removed when the run ends. The files start in the order given (node --test alone sorts
// them).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import esbuild from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// TypeScript packages of this repository, bundled from their sources like our own files.
const WORKSPACE_SOURCES = { "@guard/contract": path.join(ROOT, "contract/src/index.ts") };

const separator = process.argv.indexOf("--");
if (separator < 0 || separator === process.argv.length - 1) {
  console.error("usage: node scripts/bundled-tests.mjs [node --test options...] -- <file.test.ts>...");
  process.exit(2);
}
const testOptions = process.argv.slice(2, separator);
const files = process.argv.slice(separator + 1).map((file) => path.resolve(file));

const BUNDLES_ROOT = path.join(ROOT, ".test-tmp");
const outDir = path.join(BUNDLES_ROOT, `bundles-${process.pid}`);
removeAbandonedBundles();
const removeBundles = () => fs.rmSync(outDir, { recursive: true, force: true });
process.on("exit", removeBundles);

/** Bundles a killed run left (its process is gone) are removed by the next run. */
function removeAbandonedBundles() {
  const names = fs.existsSync(BUNDLES_ROOT) ? fs.readdirSync(BUNDLES_ROOT) : [];
  for (const name of names) {
    const pid = Number(/^bundles-(\d+)$/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if (error.code === "ESRCH") fs.rmSync(path.join(BUNDLES_ROOT, name), { recursive: true, force: true });
    }
  }
}

/** Our modules (TypeScript, and the few in JavaScript), each with its source's `import.meta.url`. */
const ownUrls = {
  name: "own-import-meta-url",
  setup(build) {
    build.onResolve({ filter: /^@guard\// }, (args) =>
      WORKSPACE_SOURCES[args.path] ? { path: WORKSPACE_SOURCES[args.path] } : undefined,
    );
    build.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (args) => {
      // Replaced where it is an expression (esbuild's define), never inside a string.
      const { code } = await esbuild.transform(await fs.promises.readFile(args.path, "utf8"), {
        loader: args.path.endsWith(".ts") ? "ts" : "js",
        format: "esm",
        target: "node20",
        sourcemap: "inline",
        sourcesContent: false,
        sourcefile: args.path,
        define: { "import.meta.url": JSON.stringify(pathToFileURL(args.path).href) },
      });
      return { contents: code, loader: "js" };
    });
  },
};

// node --test sorts the files it is given by path before it runs them; each bundle's path starts
// with its file's place in the list, so the files start in the order given.
const entryPoints = files.map((file, index) => {
  const relative = path.relative(ROOT, file);
  const name = relative.startsWith("..") ? path.basename(file) : relative;
  return { in: file, out: path.join(String(index).padStart(4, "0"), name.replace(/\.[cm]?[jt]s$/, "")) };
});

const built = await esbuild.build({
  entryPoints,
  outdir: outDir,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  // Modules the test files share (the server, the harness) go into chunks, written once.
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  sourcemap: "linked",
  logLevel: "error",
  metafile: true,
  plugins: [ownUrls],
});
const bundleOf = new Map(
  Object.entries(built.metafile.outputs)
    .filter(([, output]) => output.entryPoint)
    .map(([output, { entryPoint }]) => [path.resolve(ROOT, entryPoint), path.resolve(ROOT, output)]),
);

const child = spawn(
  process.execPath,
  ["--enable-source-maps", "--test", ...testOptions, ...files.map((file) => bundleOf.get(file))],
  { stdio: "inherit" },
);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("close", (code, signal) => {
  removeBundles();
  process.exit(code ?? (signal ? 128 : 1));
});
