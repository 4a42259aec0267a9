// @guard/contract: the wire contract of Guard's /api/v1 surface.
// This file only re-exports; each concern lives in its own module.
import { readFileSync } from "node:fs";
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
export const CONTRACT_VERSION = "1.13.0";

/** `info.version` of the OpenAPI description; it moves independently of the package version. */
export const OPENAPI_DESCRIPTION_VERSION = "2.16.0";

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

/**
 * Parses `openapi/v1.yaml` once and returns the same object on every later call. Callers share it:
 * `structuredClone()` it before mutating (for example before handing schemas to a library that
 * annotates them in place).
 */
export function loadOpenApiDocument(): Record<string, unknown> {
  if (cachedDocument === undefined) {
    // The YAML parser is loaded only when there is no prebuilt document.
    const parsed: unknown =
      readPrebuiltDocument() ??
      (createRequire(import.meta.url)("yaml") as typeof Yaml).parse(readFileSync(openApiPath, "utf8"));
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
