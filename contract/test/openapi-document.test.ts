// Document-wide rules of the OpenAPI description: its versions, the characters it may hold, how it
// writes nullability, that every $ref resolves, and the tags, security schemes and shared error
// responses the operations build on.
// Run: node --import tsx --test contract/test/openapi-document.test.ts
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { loadOpenApiDocument, OPENAPI_DESCRIPTION_VERSION, openApiPath } from "../src/index.js";
import {
  asObject,
  doc,
  isObject,
  jsonSchemaOf,
  resolvePointer,
  TAGS,
  walk,
  type JsonObject,
} from "./openapi-tree.js";

const SHARED_ERROR_RESPONSES = [
  "BadRequest",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "Conflict",
  "TooManyRequests",
  "PayloadTooLarge",
  "UnsupportedMediaType",
  "InternalError",
];

describe("OpenAPI document", () => {
  test("is loaded as the YAML holds it now, through the parsed copy kept under the YAML's digest", () => {
    const yaml = readFileSync(openApiPath, "utf8");
    assert.deepEqual(loadOpenApiDocument(), parseYaml(yaml));
    const digest = createHash("sha256").update(yaml).digest("hex").slice(0, 16);
    const cache = new URL(`../.openapi-${digest}.json`, import.meta.url);
    assert.deepEqual(JSON.parse(readFileSync(cache, "utf8")), parseYaml(yaml));
    // A damaged copy is not believed: the next process parses the YAML and writes the copy again.
    writeFileSync(cache, "{ damaged");
    const paths = execFileSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        'const c = await import("./contract/src/index.ts"); console.log(Object.keys(c.loadOpenApiDocument().paths).length)',
      ],
      { encoding: "utf8", cwd: new URL("../..", import.meta.url) },
    );
    assert.equal(Number(paths), Object.keys(asObject(parseYaml(yaml).paths, "paths")).length);
    assert.deepEqual(JSON.parse(readFileSync(cache, "utf8")), parseYaml(yaml));
  });

  test("is OpenAPI 3.1.0, description 2.17.0, with the Known gap note", () => {
    assert.ok(openApiPath.endsWith("v1.yaml"));
    assert.equal(doc.openapi, "3.1.0");
    const info = asObject(doc.info, "info");
    assert.equal(info.version, OPENAPI_DESCRIPTION_VERSION);
    assert.equal(info.version, "2.17.0");
    assert.match(String(info.description), /Known gap/);
  });

  test("holds only Latin-1 characters", () => {
    // The server builds its schemas, validators and header names from this document. V8 stores a
    // string parsed from a source holding any character above U+00FF at two bytes per character,
    // and interning hands that representation to equal names in server code, so every response
    // carrying them takes V8's and Node's slow paths (case mapping through ICU, UTF-16 flattening,
    // UTF-8 encoding character by character). A Latin-1 document keeps them one byte each.
    const text = readFileSync(openApiPath, "utf8");
    const outside = [...text.matchAll(/[\u0100-\u{10ffff}]/gu)].map((match) => {
      const line = text.slice(0, match.index).split("\n").length;
      return `line ${line}: ${JSON.stringify(match[0])}`;
    });
    assert.deepEqual(outside, [], "write `...` for an ellipsis, `-` for a dash");
  });

  test("uses JSON Schema 2020-12 nullability: no `nullable` keyword anywhere", () => {
    for (const [path, value] of walk(doc)) {
      if (isObject(value)) assert.ok(!("nullable" in value), `${path} uses nullable`);
    }
  });

  test("every $ref resolves", () => {
    for (const [path, value] of walk(doc)) {
      if (!isObject(value) || value.$ref === undefined) continue;
      assert.equal(typeof value.$ref, "string", path);
      assert.notEqual(resolvePointer(doc, String(value.$ref)), undefined, `${path}: ${String(value.$ref)}`);
    }
  });

  test("declares the tags and security schemes", () => {
    const tags = (doc.tags as JsonObject[]).map((tag) => tag.name);
    assert.deepEqual([...tags].sort(), [...TAGS].sort());
    const schemes = asObject(asObject(doc.components, "components").securitySchemes, "securitySchemes");
    assert.deepEqual(Object.keys(schemes).sort(), [
      "operatorToken",
      "principalToken",
      "serviceKey",
      "staffSession",
    ]);
    assert.deepEqual(asObject(schemes.staffSession, "staffSession").name, "guard_session");
  });

  test("shared error responses exist and carry ApiError", () => {
    const responses = asObject(asObject(doc.components, "components").responses, "responses");
    for (const name of SHARED_ERROR_RESPONSES) {
      const schema = asObject(jsonSchemaOf(doc, responses[name], name), name);
      assert.equal(schema.$ref, "#/components/schemas/ApiError", name);
    }
  });
});
