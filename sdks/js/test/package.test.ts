// The package as a user receives it: `npm pack`, install the tarball into a fresh project (offline:
// no runtime dependencies), use it from ES modules and CommonJS at run time and through the type
// checker (with the DOM library and without Node's types, as a web app compiles), and bundle it for a
// browser: nothing Node-only, nothing kept by a bare import, only what is used.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { VERSION } from "../src/index.js";

const sdkDir = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(fs.readFileSync(path.join(sdkDir, "package.json"), "utf8")) as {
  name: string;
  version: string;
  license: string;
  sideEffects: boolean;
  dependencies?: Record<string, string>;
};

let work: string;
let consumer: string;
let packedFiles: string[];

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "guard-js-pack-"));
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], sdkDir)) as {
    filename: string;
    files: { path: string }[];
  }[];
  packedFiles = packed!.files.map((f) => f.path);
  consumer = path.join(work, "consumer");
  fs.mkdirSync(consumer);
  fs.writeFileSync(path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  run(
    "npm",
    ["install", "--offline", "--no-audit", "--no-fund", path.join(work, packed!.filename)],
    consumer,
  );
});

after(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test("VERSION equals package.json's version; MIT; side-effect-free; no runtime dependencies", () => {
  assert.equal(VERSION, manifest.version);
  assert.equal(manifest.license, "MIT");
  assert.equal(manifest.sideEffects, false);
  assert.deepEqual(manifest.dependencies ?? {}, {});
});

test("src/ imports nothing outside itself (no Node modules, no other Guard package)", () => {
  const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;
  for (const file of fs.readdirSync(path.join(sdkDir, "src"), { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".ts")) continue;
    const text = fs.readFileSync(path.join(sdkDir, "src", file), "utf8");
    for (const [, target = ""] of text.matchAll(specifier)) {
      assert.ok(target.startsWith("./") || target.startsWith("../"), `src/${file} imports ${target}`);
    }
  }
});

test("the tarball holds both builds with declarations, and no sources or tests", () => {
  for (const file of [
    "package.json",
    "README.md",
    "dist/esm/index.js",
    "dist/esm/index.d.ts",
    "dist/esm/package.json",
    "dist/cjs/index.js",
    "dist/cjs/index.d.ts",
    "dist/cjs/package.json",
    "README.md",
    "CHANGELOG.md",
    "LICENSE",
  ]) {
    assert.ok(packedFiles.includes(file), `${file} is missing from the tarball`);
  }
  assert.deepEqual(
    packedFiles.filter((f) => /^(src|test|scripts)\//.test(f)),
    [],
  );
});

// The same program in both formats: a client over a stub fetch, its error type and the helper.
const program = (load: string) => `${load}
const seen = [];
const client = new GuardClient({
  baseUrl: "https://guard.example.com",
  fetch: async (url, init) => {
    seen.push(init.headers.get("x-guard-sdk"));
    return new Response(JSON.stringify({ code: "NOT_FOUND", error: "no such organisation", requestId: "req_1" }), { status: 404 });
  },
});
let error;
try {
  await client.getOrganization("nobody");
} catch (caught) {
  error = caught instanceof GuardApiError ? [caught.status, caught.code, caught.requestId] : String(caught);
}
console.log(JSON.stringify({ error, sdk: seen[0], consented: hasConsent([{ purpose: "M" }], "M") }));
`;

function expectOutput(file: string): void {
  const out = JSON.parse(run(process.execPath, [file], consumer)) as Record<string, unknown>;
  assert.deepEqual(out, { error: [404, "NOT_FOUND", "req_1"], sdk: `@guard/js/${VERSION}`, consented: true });
}

test("ES modules: import from the installed tarball", () => {
  const file = path.join(consumer, "esm.mjs");
  fs.writeFileSync(file, program(`import { GuardClient, GuardApiError, hasConsent } from "@guard/js";`));
  expectOutput(file);
});

test("CommonJS: require the installed tarball", () => {
  const file = path.join(consumer, "cjs.cjs");
  fs.writeFileSync(
    file,
    `(async () => {\n${program(`const { GuardClient, GuardApiError, hasConsent } = require("@guard/js");`)}\n})();`,
  );
  expectOutput(file);
});

test("the declarations type-check in both module formats, with the DOM library and no Node types", () => {
  const use = `
const client = new GuardClient({ baseUrl: "https://guard.example.com" });
export async function consentAndFile(anonymousId: string, token: string): Promise<boolean> {
  const consent = await client.giveAnonymousConsent({
    organizationId: "org_0123456789",
    noticeId: "ntc_0123456789",
    purpose: "Analytics",
    dataTypes: ["device-id"],
    anonymousId,
  });
  client.setAccessToken(token);
  await client.linkAnonymousConsent(anonymousId);
  const dsr = await client.createDsrRequest({ organizationId: "org_0123456789", type: "erasure" });
  const page = await client.listDsrRequests({ limit: 10 });
  const next: string | null = page.nextCursor;
  return hasConsent([consent], "Analytics") && dsr.status !== "rejected" && next !== "";
}
// @ts-expect-error: an unknown DSR type is a compile error
void client.createDsrRequest({ organizationId: "org_0123456789", type: "everything" });
// @ts-expect-error: no token broker in a browser SDK
void client.brokerToken;
export type Check = GuardApiError["code"];
`;
  fs.writeFileSync(
    path.join(consumer, "esm-use.mts"),
    `import { GuardClient, hasConsent, type GuardApiError } from "@guard/js";\n${use}`,
  );
  fs.writeFileSync(
    path.join(consumer, "cjs-use.cts"),
    `import sdk = require("@guard/js");\nconst { GuardClient, hasConsent } = sdk;\ntype GuardApiError = sdk.GuardApiError;\n${use}`,
  );
  fs.writeFileSync(
    path.join(consumer, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        lib: ["ES2022", "DOM"],
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ["esm-use.mts", "cjs-use.cts"],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  try {
    run(process.execPath, [tsc, "-p", "tsconfig.json"], consumer);
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    assert.fail(`tsc failed:\n${failure.stdout ?? ""}${failure.stderr ?? ""}`);
  }
});

/** The installed package bundled for a browser (minified), as a web app's bundler would. */
async function browserBundle(entry: string): Promise<string> {
  const result = await build({
    stdin: { contents: entry, resolveDir: consumer, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

test("a browser bundle: builds without Node built-ins; a bare import keeps nothing; unused code is dropped", async (t) => {
  const everything = await browserBundle(`export * from "@guard/js";`);
  assert.match(everything, /X-Guard-Retry-Count/);
  t.diagnostic(
    `@guard/js, whole public API, minified + gzip: ${gzipSync(everything, { level: 9 }).length} bytes`,
  );

  assert.equal((await browserBundle(`import "@guard/js";`)).trim(), "", "importing the package runs nothing");

  const helperOnly = await browserBundle(
    `import { hasConsent } from "@guard/js"; console.log(hasConsent([], "x"));`,
  );
  assert.doesNotMatch(helperOnly, /X-Guard-SDK|fetch/, "hasConsent alone pulls in the client");
});
