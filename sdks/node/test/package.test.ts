// The package as a user receives it: `npm pack`, install the tarball into a fresh project (offline:
// the SDK has no runtime dependencies), then use it from ES modules and from CommonJS, at run time
// and through the type checker.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { VERSION } from "../src/index.js";

const sdkDir = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = path.resolve(sdkDir, "../..");
const manifest = JSON.parse(fs.readFileSync(path.join(sdkDir, "package.json"), "utf8")) as {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
};

let work: string;
let consumer: string;
let packedFiles: string[];

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "guard-sdk-pack-"));
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

test("VERSION equals package.json's version", () => {
  assert.equal(VERSION, manifest.version);
});

test("the package has no runtime dependencies and never imports @guard/contract", () => {
  assert.deepEqual(manifest.dependencies ?? {}, {});
  const sources = fs.readdirSync(path.join(sdkDir, "src"), { recursive: true, encoding: "utf8" });
  for (const file of sources.filter((f) => f.endsWith(".ts"))) {
    const text = fs.readFileSync(path.join(sdkDir, "src", file), "utf8");
    assert.ok(!text.includes("@guard/contract"), `${file} imports @guard/contract`);
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

test("the tarball is self-contained: the contract's canonical modules are inside, nothing points outside", () => {
  for (const format of ["esm", "cjs"]) {
    for (const file of ["audit-hash", "webhook-signature", "capture-artifact"]) {
      const packed = `dist/${format}/canonical/${file}.js`;
      assert.ok(packedFiles.includes(packed), `${packed} is missing from the tarball`);
    }
  }
  const installed = path.join(consumer, "node_modules", manifest.name);
  const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;
  for (const file of packedFiles.filter((f) => /\.(?:js|d\.ts)$/.test(f))) {
    const text = fs.readFileSync(path.join(installed, file), "utf8");
    for (const [, target = ""] of text.matchAll(specifier)) {
      if (target.startsWith("node:")) continue;
      assert.ok(target.startsWith("./") || target.startsWith("../"), `${file} imports ${target}`);
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
      // A declaration file names the module (`./x.js`); its own declarations are `./x.d.ts`.
      const expected = file.endsWith(".d.ts") ? resolved.replace(/\.js$/, ".d.ts") : resolved;
      assert.ok(packedFiles.includes(expected), `${file} imports ${target}, which is not in the tarball`);
    }
  }
});

// The same program in both formats: a client over a stub fetch, its error type, and the helpers
// built from the contract's canonical modules.
const auditExample = JSON.parse(
  fs.readFileSync(path.join(repoRoot, "contract/vectors/audit-hash.json"), "utf8"),
) as {
  testSecret: string;
  cases: { id: string; input: unknown; expected?: string }[];
};
const contractExample = auditExample.cases.find((c) => c.id === "contract-example")!;

const program = (load: string) => `${load}
const seen = [];
const client = new GuardClient({
  baseUrl: "https://guard.example.com",
  fetch: async (url, init) => {
    seen.push(init.headers.get("x-guard-sdk"));
    return new Response(JSON.stringify({ code: "NOT_FOUND", error: "no such organisation" }), { status: 404 });
  },
});
let code;
try {
  await client.getOrganization("nobody");
} catch (error) {
  code = error instanceof GuardApiError ? error.code : String(error);
}
const body = '{"eventId":"evt_1"}';
const header = createHmac("sha256", "whsec_test").update(body).digest("hex");
const audit = computeAuditHash(${JSON.stringify(auditExample.testSecret)}, ${JSON.stringify(contractExample.input)});
console.log(JSON.stringify({ code, sdk: seen[0], verified: verifyWebhookSignature("whsec_test", body, header), audit }));
`;

function expectOutput(file: string): void {
  const out = JSON.parse(run(process.execPath, [file], consumer)) as Record<string, unknown>;
  assert.deepEqual(out, {
    code: "NOT_FOUND",
    sdk: `@guard/server/${VERSION}`,
    verified: true,
    audit: contractExample.expected,
  });
}

test("ES modules: import from the installed tarball", () => {
  const file = path.join(consumer, "esm.mjs");
  fs.writeFileSync(
    file,
    program(`import { GuardClient, GuardApiError, computeAuditHash, verifyWebhookSignature } from "@guard/server";
import { createHmac } from "node:crypto";`),
  );
  expectOutput(file);
});

test("CommonJS: require the installed tarball", () => {
  const file = path.join(consumer, "cjs.cjs");
  fs.writeFileSync(
    file,
    `(async () => {
${program(`const { GuardClient, GuardApiError, computeAuditHash, verifyWebhookSignature } = require("@guard/server");
const { createHmac } = require("node:crypto");`)}
})();`,
  );
  expectOutput(file);
});

test("the declarations type-check in both module formats", () => {
  const use = `
const client = new GuardClient({ baseUrl: "https://guard.example.com", apiKey: "gk_live_x" });
export async function gate(consentId: string): Promise<boolean> {
  const decision: ConsentGateVerdict = await client.verifyConsent(consentId, { timeoutMs: 5000 });
  const earlierName: GateDecision = decision;
  const dsr = await client.createDsrRequest({ organizationId: "org_0123456789", type: "erasure" }, "key-1");
  const status: string = dsr.status;
  return (
    earlierName.decision === "allow" && status !== "" && hasConsent([{ purpose: "M", withdrawnAt: null }], "M")
  );
}
// @ts-expect-error: an unknown DSR type is a compile error
void client.createDsrRequest({ organizationId: "org_0123456789", type: "everything" });
export type Check = GuardApiError["code"];
`;
  fs.writeFileSync(
    path.join(consumer, "esm-use.mts"),
    `import { GuardClient, hasConsent, type ConsentGateVerdict, type GateDecision, type GuardApiError } from "@guard/server";\n${use}`,
  );
  fs.writeFileSync(
    path.join(consumer, "cjs-use.cts"),
    `import sdk = require("@guard/server");\nconst { GuardClient, hasConsent } = sdk;\ntype GuardApiError = sdk.GuardApiError;\ntype ConsentGateVerdict = sdk.ConsentGateVerdict;\ntype GateDecision = sdk.GateDecision;\n${use}`,
  );
  fs.writeFileSync(
    path.join(consumer, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        strict: true,
        noEmit: true,
        types: ["node"],
        typeRoots: [path.join(repoRoot, "node_modules/@types")],
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
