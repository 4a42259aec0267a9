// Builds the server (and the @guard/contract code it imports) from TypeScript to JavaScript once,
// so `guard` starts without transpiling on every run (bench/README.md, "Start-up").
//
// A build is keyed by what it was built from: the path and content of every file under
// server/src and contract/src, the OpenAPI description and the lockfile of the packages bundled.
// It lives beside the sources at the same depth (server/.build-<key>/… mirrors server/src/…,
// contract/.build-<key>/… mirrors contract/src/…), so every `new URL("../…", import.meta.url)` in
// the code finds the same files it finds from src/. Non-TypeScript files (migrations, the demo
// shop) are copied. `guard` runs the bundle made beside them (server/.build-<key>/guard.bundle.js:
// the server and contract code and most packages in one module, every file of ours in it keeping
// its per-file counterpart's import.meta.url). A build is written to a temporary directory and
// renamed into place, so concurrent first starts never see half a build; the loser of a rename
// race uses the winner's. Older builds are removed.
//
// Plain JavaScript on purpose: this runs before anything can be transpiled.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SERVER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CONTRACT_DIR = path.resolve(SERVER_DIR, "../contract");
const BUILD_PREFIX = ".build-";
const BUILD_LAYOUT = "per-file and bundle with packages";
const CONTRACT_SPECIFIER = "@guard/contract";
// Parsed at build time into the contract build's openapi.json (contract/src/index.ts reads that
// when it exists), so a start does not parse the YAML.
const OPENAPI_YAML = path.join(CONTRACT_DIR, "openapi", "v1.yaml");

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir) {
  const found = [];
  const walk = (relative) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  walk("");
  return found.sort();
}

/**
 * The key of the sources as they are now: their paths (relative, so a copied installation keeps
 * its build) and contents, and the installed packages (bundled too); any change, addition or
 * removal changes it. Reading and hashing them costs a few milliseconds.
 */
function sourceKey(trees) {
  // The layout of a build is part of its key: a build made by an older build.js is not reused.
  const hash = createHash("sha256").update(`${BUILD_LAYOUT}\0`);
  const add = (label, file) => hash.update(`${label}\0`).update(fs.readFileSync(file)).update("\0");
  for (const { dir, files } of trees) {
    for (const file of files) add(`${path.basename(dir)}/src/${file}`, path.join(dir, "src", file));
  }
  add("contract/openapi/v1.yaml", OPENAPI_YAML);
  const installed = installedPackagesFile();
  if (installed) add("installed packages", installed);
  return hash.digest("hex").slice(0, 16);
}

/** Transpiles `tree`'s src/ into `out`, copying what is not TypeScript. */
async function buildTree(esbuild, tree, out, rewriteContract) {
  for (const file of tree.files) {
    const from = path.join(tree.dir, "src", file);
    if (!file.endsWith(".ts")) {
      fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
      fs.copyFileSync(from, path.join(out, file));
      continue;
    }
    if (file.endsWith(".d.ts")) continue;
    const { code } = await esbuild.transform(fs.readFileSync(from, "utf8"), {
      loader: "ts",
      format: "esm",
      target: "node20",
      sourcefile: from,
      sourcemap: "inline",
    });
    const target = path.join(out, file.replace(/\.ts$/, ".js"));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, rewriteContract ? rewriteContract(code, target) : code);
  }
}

// The entry `guard` runs: the server, the contract and the packages they use in one file beside the
// per-file build, so a start loads one module instead of several hundred (resolving and reading
// the packages' own files was most of a start's module loading: bench/README.md, "Start-up").
const BUNDLE = "guard.bundle.js";

// Packages that stay outside the bundle and load from node_modules at run time, because they find
// files beside their own code: PGlite its WebAssembly and data files, pino the worker its
// transports run (and fastify's logger is the same pino, so one copy), the API reference's
// plugins their page assets. Optional drivers nobody installed stay unresolved.
const EXTERNAL_PACKAGES = new Set([
  "@electric-sql/pglite",
  "pino",
  "pino-pretty",
  "@fastify/swagger",
  "@fastify/swagger-ui",
  "pg-native",
]);

/** The package a bare specifier names ("@scope/name/sub" → "@scope/name", "name/sub" → "name"). */
function packageOf(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * The lockfile naming the installed packages' versions, found upwards from the server: a build
 * bundles those packages, so installing other versions must make a new build. The project's
 * package-lock.json first (the same file wherever this tree is installed: the container image
 * builds with every dependency and runs with the production ones, from one lockfile), else npm's
 * record inside node_modules.
 */
function installedPackagesFile() {
  for (const name of ["package-lock.json", path.join("node_modules", ".package-lock.json")]) {
    for (let dir = SERVER_DIR; ; dir = path.dirname(dir)) {
      if (fs.existsSync(path.join(dir, name))) return path.join(dir, name);
      if (path.dirname(dir) === dir) break;
    }
  }
  return undefined;
}

/**
 * Bundles `entry` (server/src/cli/main.ts) with the contract into `outFile`. Every file in it keeps
 * its own `import.meta.url`: the URL of its counterpart in the per-file builds (which hold the
 * assets the code finds relative to itself), relative to the bundle, so the build can still move.
 */
async function bundleServer(esbuild, entry, outFile, finalOutFile, builtUrlOf) {
  const relativeTo = (from, to) => {
    const relative = path.relative(path.dirname(from), to).split(path.sep).join("/");
    return relative.startsWith(".") ? relative : `./${relative}`;
  };
  await esbuild.build({
    entryPoints: [entry],
    outfile: outFile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    logLevel: "silent",
    // The bundled CommonJS packages call require() for Node's modules and the external packages;
    // an ES module has no require of its own.
    banner: {
      js: 'import { createRequire as __guardCreateRequire } from "node:module"; const require = __guardCreateRequire(import.meta.url);',
    },
    plugins: [
      {
        name: "guard-sources",
        setup(build) {
          // Bare specifiers are packages, bundled from node_modules unless they must stay outside
          // (EXTERNAL_PACKAGES; Node's own modules always do); the contract package's export is
          // TypeScript, so it is bundled from its sources.
          build.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.path === CONTRACT_SPECIFIER) return { path: path.join(CONTRACT_DIR, "src", "index.ts") };
            if (args.path.startsWith("node:") || EXTERNAL_PACKAGES.has(packageOf(args.path)))
              return { path: args.path, external: true };
            return undefined;
          });
          build.onLoad({ filter: /\.ts$/ }, (args) => {
            const source = fs.readFileSync(args.path, "utf8");
            const own = JSON.stringify(relativeTo(finalOutFile, builtUrlOf(args.path)));
            return {
              contents: source.replaceAll("import.meta.url", `new URL(${own}, import.meta.url).href`),
              loader: "ts",
            };
          });
        },
      },
    ],
  });
}

const KEEP_PREVIOUS = 2;
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

/**
 * Removes old builds: all but the current one and the two newest before it (a server started from
 * an earlier build may still load modules from it), and temporary directories abandoned by a
 * process that died while building.
 */
function removeOldBuilds(dir, keep) {
  const entries = fs
    .readdirSync(dir)
    .filter((name) => name.startsWith(BUILD_PREFIX))
    .map((name) => ({ name, mtimeMs: fs.statSync(path.join(dir, name)).mtimeMs }));
  const now = Date.now();
  const abandoned = entries.filter((e) => e.name.includes(".tmp-") && now - e.mtimeMs > ABANDONED_AFTER_MS);
  const previous = entries
    .filter((e) => !e.name.includes(".tmp-") && e.name !== BUILD_PREFIX + keep)
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(KEEP_PREVIOUS);
  // Off the main thread (libuv's pool) and not awaited: the start does not wait for the deletion.
  for (const entry of [...abandoned, ...previous]) {
    fs.promises.rm(path.join(dir, entry.name), { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The built CLI entry point (server/.build-<key>/cli/main.js), building it first when the sources
 * changed since the last build. Throws when it cannot build (no esbuild, a read-only install):
 * the caller then runs the sources through tsx as before.
 */
export async function ensureServerBuild() {
  const trees = [SERVER_DIR, CONTRACT_DIR].map((dir) => ({ dir, files: filesUnder(path.join(dir, "src")) }));
  const key = sourceKey(trees);
  const serverOut = path.join(SERVER_DIR, BUILD_PREFIX + key);
  const contractOut = path.join(CONTRACT_DIR, BUILD_PREFIX + key);
  const entry = path.join(serverOut, BUNDLE);
  if (fs.existsSync(entry) && fs.existsSync(path.join(contractOut, "index.js"))) return entry;

  const esbuild = await import("esbuild");
  const suffix = `.tmp-${process.pid}-${Date.now()}`;
  const contractIndex = path.join(contractOut, "index.js");
  // The server imports the contract package by name, whose export is its TypeScript source; the
  // built server imports the built contract by path instead.
  const rewriteContract = (code, target) => {
    if (!code.includes(CONTRACT_SPECIFIER)) return code;
    // `target` is inside the temporary directory; the import must name the final one.
    const finalTarget = target.replace(serverOut + suffix, serverOut);
    let relative = path.relative(path.dirname(finalTarget), contractIndex).split(path.sep).join("/");
    if (!relative.startsWith(".")) relative = `./${relative}`;
    return code.replaceAll(`"${CONTRACT_SPECIFIER}"`, JSON.stringify(relative));
  };
  for (const [tree, out, rewrite] of [
    [trees[1], contractOut, undefined],
    [trees[0], serverOut, rewriteContract],
  ]) {
    if (fs.existsSync(out)) continue;
    const temporary = out + suffix;
    fs.rmSync(temporary, { recursive: true, force: true });
    await buildTree(esbuild, tree, temporary, rewrite);
    if (tree === trees[0]) {
      // Where each source file's per-file build is (its import.meta.url in the bundle).
      const builtUrlOf = (source) => {
        const [dir, out] = source.startsWith(path.join(CONTRACT_DIR, "src"))
          ? [CONTRACT_DIR, contractOut]
          : [SERVER_DIR, serverOut];
        return path.join(out, path.relative(path.join(dir, "src"), source).replace(/\.ts$/, ".js"));
      };
      await bundleServer(
        esbuild,
        path.join(SERVER_DIR, "src", "cli", "main.ts"),
        path.join(temporary, BUNDLE),
        entry,
        builtUrlOf,
      );
    }
    if (tree === trees[1]) {
      const { parse } = await import("yaml");
      fs.writeFileSync(
        path.join(temporary, "openapi.json"),
        JSON.stringify(parse(fs.readFileSync(OPENAPI_YAML, "utf8"))),
      );
    }
    try {
      fs.renameSync(temporary, out);
    } catch (error) {
      // Another process finished the same build first: use it.
      fs.rmSync(temporary, { recursive: true, force: true });
      if (!fs.existsSync(out)) throw error;
    }
    removeOldBuilds(tree.dir, key);
  }
  return entry;
}

// `node server/bin/build.js [--snapshot]` (npm run build -w server; the container image runs it):
// builds now rather than on the first start, and with --snapshot also makes the migrated embedded
// snapshot fresh data directories start from (server/src/db/fresh-snapshot.ts).
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const entry = await ensureServerBuild();
  console.log(`built ${path.relative(process.cwd(), path.dirname(entry))}`);
  if (process.argv.includes("--snapshot")) {
    const { spawnSync } = await import("node:child_process");
    const os = await import("node:os");
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-snapshot-"));
    const env = { ...process.env, GUARD_DATA_DIR: dataDir, GUARD_LOG_LEVEL: "warn" };
    delete env.DATABASE_URL;
    const result = spawnSync(process.execPath, [path.join(SERVER_DIR, "bin", "guard.js"), "migrate"], {
      env,
      stdio: "inherit",
    });
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}
