// The JavaScript build `guard` starts from (server/bin/build.js): one bundle holding the server, the
// contract and the packages they use, except the packages that find files beside their own code.
// A package left outside by mistake costs every start its module loading again; one bundled by
// mistake breaks where it looks for its files (PGlite's WebAssembly, pino's transport worker).
import assert from "node:assert/strict";
import fs from "node:fs";
import { builtinModules } from "node:module";
import { describe, test } from "node:test";
// @ts-expect-error plain JavaScript without declarations: it runs before anything is transpiled.
import { ensureServerBuild } from "../../bin/build.js";

// Loaded from node_modules at run time: the build's EXTERNAL_PACKAGES, and the two packages the code
// loads itself only when it needs them (pino-pretty for a terminal's log; yaml when the contract
// has no openapi.json built beside it).
const MUST_STAY_OUTSIDE = [
  "@electric-sql/pglite",
  "pino",
  "pino-pretty",
  "@fastify/swagger",
  "@fastify/swagger-ui",
  "pg-native",
  "yaml",
];

const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

describe("the server build", () => {
  test("bundles every package but those that find files beside their own code", async () => {
    const bundle = fs.readFileSync((await ensureServerBuild()) as string, "utf8");
    const specifiers = [
      // The bundle's own imports start a line; the calls name one specifier each.
      ...bundle.matchAll(/^import [^\n]* from "([^"\n]+)";$/gm),
      ...bundle.matchAll(/\bimport\("([^"\n]+)"\)/g),
      ...bundle.matchAll(/(?:\b|__)require\("([^"\n]+)"\)/g),
      ...bundle.matchAll(/\bcreateRequire\d*\([^\n]*?\)\("([^"\n]+)"\)/g),
    ]
      .map((match) => match[1]!)
      // Ajv's standalone code generation writes require() calls into strings it never runs here.
      .filter((specifier) => !/^ajv(-formats)?\/dist\//.test(specifier));
    const builtins = new Set(builtinModules);
    const packages = new Set(
      specifiers
        .filter((s) => !s.startsWith(".") && !s.startsWith("node:") && !builtins.has(s.split("/")[0]!))
        .map(packageOf),
    );
    assert.deepEqual([...packages].sort(), [...MUST_STAY_OUTSIDE].sort());
    // What the start uses most is inside: no import of them is left for node_modules.
    for (const bundled of ["fastify", "kysely", "pg", "ajv", "jose", "commander"])
      assert.ok(!packages.has(bundled), `${bundled} is bundled`);
  });
});
