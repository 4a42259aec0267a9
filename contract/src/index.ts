// @guard/contract: the wire contract of Guard's /api/v1 surface.
// This file only re-exports; each concern lives in its own module.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as Yaml from "yaml";

// ---------------------------------------------------------------------------------------------------
// Error catalog (contract/errors.json)
// ---------------------------------------------------------------------------------------------------
export * from "./errors.js";

// ---------------------------------------------------------------------------------------------------
// OpenAPI description (contract/openapi/v1.yaml)
// ---------------------------------------------------------------------------------------------------

/** Version of the `@guard/contract` package (and of its error catalog). */
export const CONTRACT_VERSION = "1.14.0";

/** `info.version` of the OpenAPI description; it moves independently of the package version. */
export const OPENAPI_DESCRIPTION_VERSION = "2.17.0";

/** Absolute filesystem path of `contract/openapi/v1.yaml`. */
export const openApiPath: string = fileURLToPath(new URL("../openapi/v1.yaml", import.meta.url));

let cachedDocument: Record<string, unknown> | undefined;

// The server's build (server/bin/build.js) writes the parsed document beside the built module, so
// a start reads JSON instead of parsing the YAML (bench/README.md, "Start-up"); from the sources
// there is none.
const prebuiltDocumentUrl = new URL("./openapi.json", import.meta.url);

function readPrebuiltDocument(): unknown {
  try {
    return JSON.parse(readFileSync(prebuiltDocumentUrl, "utf8"));
  } catch {
    return undefined;
  }
}

// From the sources, the YAML parsed once is kept as JSON beside it, under the YAML's digest
// (contract/.openapi-<digest>.json, ignored by git): every test process and `tsx` start loads the
// document, and reading JSON is far cheaper than parsing YAML (scripts/README.md).
const PARSED_CACHE_PREFIX = ".openapi-";

function parseYamlDocument(): unknown {
  const yaml = readFileSync(openApiPath, "utf8");
  const digest = createHash("sha256").update(yaml).digest("hex").slice(0, 16);
  const cacheUrl = new URL(`../${PARSED_CACHE_PREFIX}${digest}.json`, import.meta.url);
  try {
    return JSON.parse(readFileSync(cacheUrl, "utf8"));
  } catch {
    // Not cached yet (or a damaged file, which the write below replaces).
  }
  const parsed: unknown = (createRequire(import.meta.url)("yaml") as typeof Yaml).parse(yaml);
  writeParsedCache(cacheUrl, parsed);
  return parsed;
}

/** Best effort: an installation whose directory is read-only parses the YAML on every start. */
function writeParsedCache(cacheUrl: URL, parsed: unknown): void {
  const file = fileURLToPath(cacheUrl);
  const partial = `${file}.${process.pid}.partial`;
  try {
    // Written beside the final name and renamed: a concurrent reader never sees half a file.
    writeFileSync(partial, JSON.stringify(parsed));
    renameSync(partial, file);
    const dir = fileURLToPath(new URL("..", import.meta.url));
    for (const name of readdirSync(dir)) {
      const stale = name.startsWith(PARSED_CACHE_PREFIX) && `${dir}${name}` !== file;
      if (stale && name.endsWith(".json")) rmSync(`${dir}${name}`, { force: true });
    }
  } catch {
    rmSync(partial, { force: true });
  }
}

/**
 * Parses `openapi/v1.yaml` once and returns the same object on every later call. Callers share it:
 * `structuredClone()` it before mutating (for example before handing schemas to a library that
 * annotates them in place).
 */
export function loadOpenApiDocument(): Record<string, unknown> {
  if (cachedDocument === undefined) {
    const parsed: unknown = readPrebuiltDocument() ?? parseYamlDocument();
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new Error(`${openApiPath} does not hold a YAML mapping`);
    }
    cachedDocument = parsed as Record<string, unknown>;
  }
  return cachedDocument;
}

// ---------------------------------------------------------------------------------------------------
// Canonical forms (audit hash, dpdpcca/2, webhook signatures) and their golden vectors.
// Owned by another change; it adds `export * from "./canonical/index.js";` here.
// ---------------------------------------------------------------------------------------------------
export * from "./canonical/index.js";
