// Keeps the three faces of the contract in step: the error catalog (errors.json), the hand-written
// code unions (src/errors.ts) and the OpenAPI description (openapi/v1.yaml). Also checks the
// OpenAPI document structurally and against contract 1.6.0, which existing clients speak.
// Run: node --import tsx --test contract/test/catalog.test.ts
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  API_ERROR_CODES,
  CONTRACT_VERSION,
  ERROR_CATALOG,
  ERROR_CATALOG_VERSION,
  ERROR_CODES,
  MCP_ERROR_CODES,
  OPENAPI_DESCRIPTION_VERSION,
  isErrorCode,
  loadOpenApiDocument,
  openApiPath,
  parseErrorCatalog,
  statusForCode,
} from "../src/index.js";

// ---------------------------------------------------------------------------------------------------
// What the contract fixes (CONTRACT.md and the contract 1.6.0 outline), restated independently here.
// ---------------------------------------------------------------------------------------------------

/** Contract 1.6.0's /api/v1 codes and statuses, in the catalog's fixed order. */
const CONTRACT_1_6_API_CODES: ReadonlyArray<readonly [string, number]> = [
  ["VALIDATION_ERROR", 400],
  ["NOTICE_NOT_PUBLISHED", 400],
  ["ALREADY_CONSENTED", 409],
  ["NOT_ASSOCIATED_WITH_ORG", 400],
  ["INVALID_STATUS_TRANSITION", 400],
  ["UNAUTHORIZED", 401],
  ["MINOR_TRACKING_BLOCKED", 403],
  ["NOT_FOUND", 404],
  ["SDK_VERSION_UNSUPPORTED", 426],
  ["RATE_LIMITED", 429],
];

/** Contract 1.7.0's additive /api/v1 codes, in order. */
const CONTRACT_1_7_API_CODES: ReadonlyArray<readonly [string, number]> = [
  ["FORBIDDEN", 403],
  ["CONFLICT", 409],
  ["PAYLOAD_TOO_LARGE", 413],
  ["UNSUPPORTED_MEDIA_TYPE", 415],
  ["INTERNAL_ERROR", 500],
  ["UNAVAILABLE", 503],
];

/** The spec's eleven /mcp/v1-only codes, in the spec's order. */
const MCP_ONLY_CODES = [
  "SCOPE_INSUFFICIENT",
  "TOOL_NOT_AVAILABLE",
  "ORG_DISABLED",
  "APPROVAL_REQUIRED",
  "APPROVAL_BACKLOG_FULL",
  "PROPOSAL_EXPIRED",
  "SECOND_REVIEWER_REQUIRED",
  "PROPOSAL_ALREADY_REVIEWED",
  "DATA_VOLUME_EXCEEDED",
  "PLAN_LIMIT_REACHED",
  "AGENT_WRITE_BLOCKED",
];

/**
 * Where a code is documented with a status other than its catalog status, on purpose.
 * Anonymous capture answers ALREADY_CONSENTED with 400, as contract 1.6.0 does.
 */
const STATUS_EXCEPTIONS: ReadonlySet<string> = new Set([
  "giveConsentAnonymous 400 ALREADY_CONSENTED",
  "400 ALREADY_CONSENTED",
]);

/** Every operation of contract 1.6.0 (method, path, operationId); a 1.6.0 client calls these. */
const CONTRACT_1_6_OPERATIONS: ReadonlyArray<readonly [string, string, string]> = [
  ["post", "/cm/v1/consent", "recordConsent"],
  ["get", "/cm/v1/consent/{consentId}", "getConsent"],
  ["delete", "/cm/v1/consent/{consentId}", "withdrawConsent"],
  ["get", "/api/v1/org/{slug}", "getOrgBySlug"],
  ["get", "/api/v1/org/{orgId}/notices", "getNoticesForOrg"],
  ["get", "/api/v1/notices/{noticeId}", "getNoticeById"],
  ["get", "/api/v1/org/{orgId}/banner-config", "getBannerConfig"],
  ["get", "/api/v1/widget/config", "getWidgetConfig"],
  ["post", "/api/v1/auth/broker-token", "brokerToken"],
  ["post", "/api/v1/link-anonymous-consent", "linkAnonymousConsent"],
  ["post", "/api/v1/consents/anonymous", "giveConsentAnonymous"],
  ["get", "/api/v1/dsr", "listDsrRequestsForCurrentUser"],
  ["post", "/api/v1/dsr", "createDsrRequest"],
  ["get", "/api/v1/grievances", "listGrievancesForCurrentUser"],
  ["post", "/api/v1/grievances", "createGrievance"],
  ["get", "/api/v1/nomination", "getNomination"],
  ["put", "/api/v1/nomination", "upsertNomination"],
  ["delete", "/api/v1/nomination", "revokeNomination"],
  ["post", "/api/v1/age/verify-parent", "verifyParent"],
  ["post", "/api/v1/cm/signal", "receiveCmSignal"],
  ["get", "/api/v1/retention/due", "listDueRetentions"],
  ["get", "/api/v1/breaches", "listBreaches"],
  ["get", "/api/v1/cross-border/transfers", "listCrossBorderTransfers"],
  ["post", "/api/v1/consent/verify", "verifyConsentGate"],
  ["get", "/api/v1/consent/gate/decisions", "listConsentGateDecisions"],
  ["get", "/api/v1/consent/gate/alerts", "listConsentGateBypassAlerts"],
  ["post", "/api/v1/offline-consent/links", "createOfflineConsentLink"],
  ["post", "/api/v1/offline/captures", "syncOfflineCaptures"],
  ["post", "/api/v1/offline/pos", "createPosConsentRequest"],
  ["post", "/api/v1/offline/ivr", "recordIvrConsentArtifact"],
  ["get", "/api/v1/staff/dsr", "staffListDsrRequests"],
  ["get", "/api/v1/staff/dsr/statutory-basis-suggestions", "staffListStatutoryBasisSuggestions"],
  ["patch", "/api/v1/staff/dsr/{requestId}", "staffUpdateDsrStatus"],
  ["post", "/api/v1/staff/dsr/{requestId}/summary", "staffGenerateDsrSummary"],
  ["post", "/api/v1/staff/dsr/{requestId}/statutory-denial", "staffRejectDsrWithStatutoryBasis"],
  ["get", "/api/v1/staff/grievances", "staffListGrievances"],
  ["post", "/api/v1/staff/grievances/{grievanceId}/respond", "staffRespondToGrievance"],
  ["get", "/api/v1/consent-status", "getConsentStatus"],
];

/** Contract 1.7.0 foundation routes the server implements first. */
const FOUNDATION_OPERATIONS: ReadonlyArray<readonly [string, string, string]> = [
  ["get", "/healthz", "getHealth"],
  ["get", "/readyz", "getReadiness"],
  ["get", "/api/v1/openapi.json", "getOpenApiDocument"],
  ["post", "/api/v1/staff/session", "createStaffSession"],
  ["get", "/api/v1/staff/session", "getStaffSession"],
  ["delete", "/api/v1/staff/session", "deleteStaffSession"],
  ["get", "/api/v1/staff/api-keys", "listApiKeys"],
  ["post", "/api/v1/staff/api-keys", "createApiKey"],
  ["delete", "/api/v1/staff/api-keys/{apiKeyId}", "revokeApiKey"],
];

interface SchemaShape {
  readonly required: readonly string[];
  readonly optional?: readonly string[];
  readonly enums?: Readonly<Record<string, readonly string[]>>;
}

/** Contract 1.6.0's component schemas: required-ness may never change; enums may only grow where listed. */
const CONTRACT_1_6_SCHEMAS: Readonly<Record<string, SchemaShape>> = {
  ApiError: { required: ["code", "error"] },
  Error: { required: ["error"] },
  OrgSummary: { required: ["orgId", "name", "slug"] },
  Notice: {
    required: ["_id", "organizationId", "version", "itemized", "content", "status"],
    enums: { status: ["draft", "published"] },
  },
  DsrRequest: {
    required: ["requestId", "type", "status"],
    optional: ["dueAt", "requestDetails"],
    enums: {
      type: ["summary", "processors", "correction", "erasure"],
      status: ["pending", "in_progress", "completed", "rejected"],
    },
  },
  Grievance: {
    required: ["grievanceId", "subject", "description", "status", "dueAt"],
    optional: ["respondedAt", "response"],
    enums: { status: ["open", "in_progress", "resolved"] },
  },
  Nomination: {
    required: ["nominationId", "nomineeName", "nomineeContact", "status"],
    enums: { status: ["active", "revoked"] },
  },
  WidgetConfig: { required: ["organizationId", "noticeId", "notice"], optional: ["bannerSettings"] },
  ConsentGateDecision: {
    required: ["decisionId", "consentId", "apiKeyId", "decision", "reason", "decidedAt"],
    enums: { decision: ["allow", "deny"], reason: ["consent_active", "consent_withdrawn"] },
  },
  ConsentGateBypassAlert: { required: ["consentId", "denyCount", "firstDeniedAt", "lastDeniedAt"] },
  CmSignalRecord: {
    required: [
      "@context",
      "signalId",
      "cmRegistryId",
      "cmName",
      "principalTokenFromCm",
      "purposes",
      "signalType",
      "receivedAt",
      "mappingStatus",
    ],
    enums: {
      signalType: ["consent_given", "consent_withdrawn", "consent_updated"],
      mappingStatus: ["mapped", "unresolved", "duplicate"],
    },
  },
  CreateOfflineConsentLinkRequest: { required: ["noticeId", "purpose", "dataTypes"], optional: ["label"] },
  OfflineConsentLink: { required: ["linkId", "token"] },
  OfflineCaptureSession: {
    required: [
      "clientSessionId",
      "deviceId",
      "noticeId",
      "noticeVersion",
      "noticeLocale",
      "channel",
      "capturedAtClient",
      "deviceSignature",
      "dataTypes",
      "purposeGrants",
    ],
    optional: ["principalHandle", "linkId"],
    enums: { channel: ["qr", "agent_app", "pos", "async_link", "ivr"] },
  },
  OfflineCaptureResult: {
    required: ["clientSessionId", "status"],
    optional: ["consentId", "reason", "withdrawalToken"],
    enums: { status: ["verified", "quarantined", "rejected"] },
  },
  IvrConsentArtifact: {
    required: [
      "noticeId",
      "partnerCallId",
      "audioRecordingUri",
      "locale",
      "dtmfSequence",
      "callerNumberHash",
      "capturedAt",
      "partnerSignature",
      "purpose",
      "dataTypes",
    ],
    optional: ["transcript"],
  },
  RecordConsentRequest: { required: ["email", "noticeId", "purpose", "dataTypes"] },
  ConsentRecord: {
    required: ["@context", "consentId", "purpose", "dataTypes", "givenAt", "withdrawnAt", "status"],
    enums: { status: ["active", "withdrawn"] },
  },
};

/** Enum values contract 1.7.0 adds on purpose (documented in info.description). */
const ENUM_ADDITIONS: Readonly<Record<string, readonly string[]>> = {
  "Notice.status": ["superseded", "archived"],
};

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

const TAGS = [
  "public",
  "consent",
  "principal",
  "gate",
  "registers",
  "offline",
  "staff",
  "accounts",
  "system",
];
const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

// ---------------------------------------------------------------------------------------------------
// Helpers over the parsed YAML (plain JSON values).
// ---------------------------------------------------------------------------------------------------

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asObject(value: unknown, where: string): JsonObject {
  assert.ok(isObject(value), `${where} is not an object`);
  return value;
}

function asStrings(value: unknown, where: string): string[] {
  assert.ok(
    Array.isArray(value) && value.every((item) => typeof item === "string"),
    `${where}: not a string[]`,
  );
  return value as string[];
}

function resolvePointer(doc: JsonObject, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
    if (node === undefined) return undefined;
  }
  return node;
}

/** Follows `$ref` chains to the target object. */
function deref(doc: JsonObject, value: unknown, where: string): JsonObject {
  let node = asObject(value, where);
  for (let hops = 0; typeof node.$ref === "string"; hops++) {
    assert.ok(hops < 20, `${where}: $ref cycle`);
    node = asObject(resolvePointer(doc, node.$ref), `${where} -> ${node.$ref}`);
  }
  return node;
}

/** Yields every value in a JSON tree with its JSON-pointer-ish path. */
function* walk(node: unknown, path = "#"): Generator<[string, unknown]> {
  yield [path, node];
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) yield* walk(item, `${path}/${index}`);
  } else if (isObject(node)) {
    for (const [key, item] of Object.entries(node)) yield* walk(item, `${path}/${key}`);
  }
}

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly id: string;
  readonly op: JsonObject;
  readonly pathItem: JsonObject;
}

function operationsOf(doc: JsonObject): Operation[] {
  const result: Operation[] = [];
  for (const [path, item] of Object.entries(asObject(doc.paths, "paths"))) {
    const pathItem = asObject(item, path);
    for (const method of HTTP_METHODS) {
      if (pathItem[method] === undefined) continue;
      const op = asObject(pathItem[method], `${method} ${path}`);
      result.push({ method, path, op, pathItem, id: String(op.operationId) });
    }
  }
  return result;
}

function responsesOf(op: Operation): JsonObject {
  return asObject(op.op.responses, `${op.id}.responses`);
}

function errorStatuses(op: Operation): number[] {
  return Object.keys(responsesOf(op))
    .map(Number)
    .filter((status) => status >= 400);
}

function isLegacyPath(path: string): boolean {
  return path.startsWith("/cm/v1/") || path === "/api/v1/cm/signal";
}

function typesOf(schema: JsonObject): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  return [];
}

function parametersOf(doc: JsonObject, op: Operation): JsonObject[] {
  const all = [...((op.pathItem.parameters as unknown[]) ?? []), ...((op.op.parameters as unknown[]) ?? [])];
  return all.map((p, i) => deref(doc, p, `${op.id}.parameters[${i}]`));
}

function jsonSchemaOf(doc: JsonObject, holder: unknown, where: string): unknown {
  const content = asObject(deref(doc, holder, where).content, `${where}.content`);
  return asObject(content["application/json"], `${where} application/json`).schema;
}

const doc = loadOpenApiDocument();
const operations = operationsOf(doc);
const schemas = asObject(asObject(doc.components, "components").schemas, "components.schemas");
const rawCatalog = JSON.parse(readFileSync(new URL("../errors.json", import.meta.url), "utf8")) as unknown;
const catalogCodes = asObject(rawCatalog, "errors.json").codes as JsonObject[];
const apiEntries = ERROR_CATALOG.filter((entry) => entry.surface === "api");

// ---------------------------------------------------------------------------------------------------
// The catalog
// ---------------------------------------------------------------------------------------------------

describe("error catalog", () => {
  test("versions agree: errors.json, package.json, CONTRACT_VERSION, x-guard-contract-version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as JsonObject;
    assert.equal(ERROR_CATALOG_VERSION, CONTRACT_VERSION);
    assert.equal(pkg.version, CONTRACT_VERSION);
    assert.equal(doc["x-guard-contract-version"], CONTRACT_VERSION);
  });

  test("entries have exactly {code, status, surface, description}", () => {
    for (const entry of catalogCodes) {
      assert.deepEqual(
        Object.keys(entry).sort(),
        ["code", "description", "status", "surface"],
        JSON.stringify(entry),
      );
    }
    assert.deepEqual(parseErrorCatalog(rawCatalog), { version: ERROR_CATALOG_VERSION, codes: ERROR_CATALOG });
  });

  test("codes are unique", () => {
    const codes = ERROR_CATALOG.map((entry) => entry.code);
    assert.equal(new Set(codes).size, codes.length);
  });

  test("statuses are 4xx or 5xx", () => {
    for (const { code, status } of ERROR_CATALOG) {
      assert.ok(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: ${status}`);
    }
  });

  test("fixed order: 1.6.0 api codes, 1.7.0 additions, then the mcp-only codes", () => {
    const expected: Array<{ code: string; status?: number; surface: string }> = [
      ...CONTRACT_1_6_API_CODES.map(([code, status]) => ({ code, status, surface: "api" })),
      ...CONTRACT_1_7_API_CODES.map(([code, status]) => ({ code, status, surface: "api" })),
      ...MCP_ONLY_CODES.map((code) => ({ code, surface: "mcp" })),
    ];
    const actual = ERROR_CATALOG.map(({ code, status, surface }, i) =>
      expected[i]?.status === undefined ? { code, surface } : { code, status, surface },
    );
    assert.deepEqual(actual, expected);
  });

  test("the hand-written unions in src/errors.ts match errors.json", () => {
    assert.deepEqual(
      [...ERROR_CODES],
      ERROR_CATALOG.map((entry) => entry.code),
    );
    assert.deepEqual(
      [...API_ERROR_CODES],
      apiEntries.map((entry) => entry.code),
    );
    assert.deepEqual(
      [...MCP_ERROR_CODES],
      ERROR_CATALOG.filter((entry) => entry.surface === "mcp").map((entry) => entry.code),
    );
  });

  test("statusForCode and isErrorCode read the catalog", () => {
    for (const { code, status } of ERROR_CATALOG) assert.equal(statusForCode(code), status);
    assert.equal(statusForCode("ALREADY_CONSENTED"), 409);
    assert.equal(isErrorCode("NOT_FOUND"), true);
    assert.equal(isErrorCode("NOT_A_CODE"), false);
  });

  test("parseErrorCatalog rejects an unknown code and a 2xx status", () => {
    const entry = { code: "NOT_FOUND", status: 404, surface: "api", description: "x" };
    assert.throws(
      () => parseErrorCatalog({ version: "1", codes: [{ ...entry, code: "NOPE" }] }),
      /unknown code/,
    );
    assert.throws(() => parseErrorCatalog({ version: "1", codes: [{ ...entry, status: 200 }] }), /status/);
  });
});

// ---------------------------------------------------------------------------------------------------
// Catalog <-> OpenAPI
// ---------------------------------------------------------------------------------------------------

describe("catalog and OpenAPI agree", () => {
  test("ApiError.code x-guard-codes lists every api code, in catalog order", () => {
    const code = asObject(asObject(asObject(schemas.ApiError, "ApiError").properties, "props").code, "code");
    assert.deepEqual(asStrings(code["x-guard-codes"], "x-guard-codes"), [...API_ERROR_CODES]);
    for (const example of asStrings(code.examples, "examples")) assert.ok(isErrorCode(example), example);
  });

  test("every declared error status maps to an api code with that status", () => {
    const apiStatuses = new Set(apiEntries.map((entry) => entry.status));
    for (const op of operations) {
      for (const status of errorStatuses(op)) {
        assert.ok(apiStatuses.has(status), `${op.id} declares ${status}, which no api code maps to`);
      }
    }
  });

  test("every api code's status is declared by some operation", () => {
    const declared = new Set(operations.flatMap(errorStatuses));
    for (const { code, status } of apiEntries)
      assert.ok(declared.has(status), `${code} (${status}) is never declared`);
  });

  test("error responses name api codes with their own status", () => {
    for (const op of operations) {
      for (const status of errorStatuses(op)) {
        const declared = asObject(responsesOf(op)[String(status)], `${op.id} ${status}`);
        const description = String(
          declared.description ?? deref(doc, declared, `${op.id} ${status}`).description,
        );
        const named = [...description.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((m) => m[1] ?? "");
        assert.ok(named.length > 0, `${op.id} ${status}: description names no catalog code`);
        for (const code of named) {
          assert.ok(isErrorCode(code), `${op.id} ${status}: \`${code}\` is not a catalog code`);
          const entry = ERROR_CATALOG.find((e) => e.code === code);
          assert.equal(entry?.surface, "api", `${op.id} ${status}: ${code} is not an api code`);
          if (!STATUS_EXCEPTIONS.has(`${op.id} ${status} ${code}`)) {
            assert.equal(entry?.status, status, `${op.id} ${status}: ${code} maps to ${entry?.status}`);
          }
        }
      }
    }
  });

  test('"`<status> <CODE>`" mentions anywhere in the document use the catalog status', () => {
    for (const [path, value] of walk(doc)) {
      if (typeof value !== "string") continue;
      for (const [, status, code] of value.matchAll(/`(\d{3}) ([A-Z][A-Z0-9_]+)`/g)) {
        assert.ok(isErrorCode(code), `${path}: ${code} is not a catalog code`);
        if (!STATUS_EXCEPTIONS.has(`${status} ${code}`)) {
          assert.equal(String(statusForCode(code)), status, `${path}: ${code} is not ${status}`);
        }
      }
    }
  });

  test("error bodies: Error on /cm/v1 and /api/v1/cm/signal, ApiError everywhere else", () => {
    for (const op of operations) {
      const expected = isLegacyPath(op.path) ? "#/components/schemas/Error" : "#/components/schemas/ApiError";
      for (const status of errorStatuses(op)) {
        const schema = asObject(
          jsonSchemaOf(doc, responsesOf(op)[String(status)], `${op.id} ${status}`),
          "schema",
        );
        assert.equal(schema.$ref, expected, `${op.id} ${status}`);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// OpenAPI structure
// ---------------------------------------------------------------------------------------------------

describe("OpenAPI document", () => {
  test("is OpenAPI 3.1.0, description 2.10.0, with the Known gap note", () => {
    assert.ok(openApiPath.endsWith("v1.yaml"));
    assert.equal(doc.openapi, "3.1.0");
    const info = asObject(doc.info, "info");
    assert.equal(info.version, OPENAPI_DESCRIPTION_VERSION);
    assert.equal(info.version, "2.10.0");
    assert.match(String(info.description), /Known gap/);
  });

  test("holds only Latin-1 characters", () => {
    // Servers build their schemas, validators and header names from this document. V8 keeps a
    // string that a character above U+00FF could appear in as two bytes per character, and so did
    // every string parsed out of a YAML source holding one (a single `…` in a description did it).
    // Those strings are then interned: a header name or property name written the same way in
    // server code becomes that two-byte string too, and every response that carries it takes
    // V8's and Node's slow paths (case mapping through ICU, UTF-16 flattening, UTF-8 encoding
    // character by character): about 10 000 instructions per gate request, by callgrind.
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
    assert.deepEqual(Object.keys(schemes).sort(), ["principalToken", "serviceKey", "staffSession"]);
    assert.deepEqual(asObject(schemes.staffSession, "staffSession").name, "guard_session");
  });

  test("shared error responses exist and carry ApiError", () => {
    const responses = asObject(asObject(doc.components, "components").responses, "responses");
    for (const name of SHARED_ERROR_RESPONSES) {
      const schema = asObject(jsonSchemaOf(doc, responses[name], name), name);
      assert.equal(schema.$ref, "#/components/schemas/ApiError", name);
    }
  });

  test("operationIds are present and unique", () => {
    const ids = operations.map((op) => op.op.operationId);
    for (const [i, id] of ids.entries()) assert.ok(typeof id === "string" && id.length > 0, `op #${i}`);
    assert.equal(new Set(ids).size, ids.length, `duplicate operationIds: ${ids.join(", ")}`);
  });

  test("every contract 1.6.0 and foundation operation is there, at its method and path", () => {
    for (const [method, path, id] of [...CONTRACT_1_6_OPERATIONS, ...FOUNDATION_OPERATIONS]) {
      const op = operations.find((candidate) => candidate.id === id);
      assert.ok(op, `${id} missing`);
      assert.equal(`${op.method} ${op.path}`, `${method} ${path}`, id);
    }
  });

  test("every operation has tags, a summary and a security list", () => {
    const schemes = Object.keys(asObject(asObject(doc.components, "components").securitySchemes, "schemes"));
    for (const op of operations) {
      const tags = asStrings(op.op.tags, `${op.id}.tags`);
      assert.ok(tags.length > 0 && tags.every((tag) => TAGS.includes(tag)), `${op.id}: tags ${tags.join()}`);
      assert.ok(typeof op.op.summary === "string" && op.op.summary.length > 0, `${op.id}: summary`);
      assert.ok(Array.isArray(op.op.security), `${op.id}: security must be declared ([] for none)`);
      for (const requirement of op.op.security as unknown[]) {
        for (const name of Object.keys(asObject(requirement, `${op.id}.security`))) {
          assert.ok(schemes.includes(name), `${op.id}: unknown scheme ${name}`);
        }
      }
    }
  });

  test("every path parameter is declared, required, and used", () => {
    for (const op of operations) {
      const inTemplate = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const pathParams = parametersOf(doc, op).filter((p) => p.in === "path");
      assert.deepEqual(pathParams.map((p) => p.name).sort(), inTemplate, op.id);
      for (const p of pathParams)
        assert.equal(p.required, true, `${op.id}: ${String(p.name)} must be required`);
    }
  });

  test("id parameters use the Id schema", () => {
    const idNames = [
      "orgId",
      "noticeId",
      "consentId",
      "requestId",
      "grievanceId",
      "apiKeyId",
      "id",
      "organizationId",
    ];
    for (const op of operations) {
      for (const p of parametersOf(doc, op)) {
        if (!idNames.includes(String(p.name))) continue;
        assert.equal(
          asObject(p.schema, "schema").$ref,
          "#/components/schemas/Id",
          `${op.id}: ${String(p.name)}`,
        );
      }
    }
  });

  test("every operation declares 400, 404 and 500; writes declare 413 and 415", () => {
    for (const op of operations) {
      const statuses = errorStatuses(op);
      for (const status of [400, 404, 500]) assert.ok(statuses.includes(status), `${op.id}: no ${status}`);
      if (op.op.requestBody !== undefined || op.method !== "get") {
        for (const status of [413, 415]) assert.ok(statuses.includes(status), `${op.id}: no ${status}`);
      }
    }
  });

  test("authenticated operations declare 401; rate-limited ones 429 with Retry-After", () => {
    for (const op of operations) {
      const statuses = errorStatuses(op);
      if ((op.op.security as unknown[]).length > 0) assert.ok(statuses.includes(401), `${op.id}: no 401`);
      if (statuses.includes(429)) {
        const headers = asObject(deref(doc, responsesOf(op)["429"], op.id).headers, `${op.id} 429 headers`);
        assert.ok(headers["Retry-After"] !== undefined, `${op.id}: 429 without Retry-After`);
      }
    }
    for (const id of [
      "giveConsentAnonymous",
      "createOfflineConsentLink",
      "syncOfflineCaptures",
      "createPosConsentRequest",
      "recordIvrConsentArtifact",
    ]) {
      const op = operations.find((candidate) => candidate.id === id);
      assert.ok(op && errorStatuses(op).includes(429), `${id}: no 429`);
    }
  });

  test("Idempotency-Key routes declare 409 and document Idempotent-Replayed", () => {
    const mustTakeKey = ["giveConsentAnonymous", "createDsrRequest", "createGrievance"];
    for (const op of operations) {
      const takesKey = parametersOf(doc, op).some((p) => p.name === "Idempotency-Key" && p.in === "header");
      if (mustTakeKey.includes(op.id)) assert.ok(takesKey, `${op.id}: no Idempotency-Key`);
      if (!takesKey) continue;
      assert.ok(errorStatuses(op).includes(409), `${op.id}: no 409`);
      const success = Object.keys(responsesOf(op)).find((status) => status.startsWith("2")) ?? "";
      const headers = asObject(
        deref(doc, responsesOf(op)[success], op.id).headers,
        `${op.id} ${success} headers`,
      );
      assert.ok(headers["Idempotent-Replayed"] !== undefined, `${op.id}: no Idempotent-Replayed header`);
    }
  });

  test("request bodies are required JSON", () => {
    for (const op of operations) {
      if (op.op.requestBody === undefined) continue;
      const body = deref(doc, op.op.requestBody, `${op.id}.requestBody`);
      assert.equal(body.required, true, `${op.id}: requestBody.required`);
      assert.deepEqual(Object.keys(asObject(body.content, `${op.id} content`)), ["application/json"], op.id);
    }
  });

  test("request strings and arrays are bounded; request objects stay open", () => {
    const seen = new Set<JsonObject>();
    const check = (node: unknown, where: string): void => {
      if (!isObject(node)) return;
      const schema = deref(doc, node, where);
      if (seen.has(schema) && node.$ref !== undefined) return;
      seen.add(schema);
      const types = typesOf(schema);
      const enumerated = schema.enum !== undefined || schema.const !== undefined;
      if (types.includes("string") && !enumerated) {
        assert.ok(Number(schema.minLength) >= 1, `${where}: string without minLength >= 1`);
        assert.ok(typeof schema.maxLength === "number", `${where}: string without maxLength`);
      }
      if (types.includes("array")) {
        assert.ok(Number(schema.minItems) >= 1, `${where}: array without minItems >= 1`);
        assert.ok(typeof schema.maxItems === "number", `${where}: array without maxItems`);
      }
      assert.notEqual(schema.additionalProperties, false, `${where}: request objects must stay open`);
      for (const [name, property] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
        check(property, `${where}.${name}`);
      }
      check(schema.items, `${where}[]`);
      for (const key of ["anyOf", "oneOf", "allOf"]) {
        if (Array.isArray(schema[key]))
          (schema[key] as unknown[]).forEach((s, i) => check(s, `${where}.${key}[${i}]`));
      }
    };
    for (const op of operations) {
      if (op.op.requestBody !== undefined)
        check(jsonSchemaOf(doc, op.op.requestBody, op.id), `${op.id} body`);
      for (const p of parametersOf(doc, op)) check(p.schema, `${op.id} ${String(p.in)} ${String(p.name)}`);
    }
  });

  test("audit-hash inputs exclude their separators", () => {
    const purpose = asObject(schemas.Purpose, "Purpose");
    const dataType = asObject(schemas.DataType, "DataType");
    assert.equal(purpose.pattern, "^[^|]+$");
    assert.equal(dataType.pattern, "^[^|,]+$");
    const id = new RegExp(String(asObject(schemas.Id, "Id").pattern), "u");
    assert.ok(id.test("org_abc12345") && !id.test("org_abc|1234") && !id.test("org_abc,1234"));
  });

  test("times, durations and counts are integers", () => {
    const quantity = (name: string): boolean =>
      /(?:At|AtClient|Ms|Count|Threshold)$/.test(name) ||
      /^(?:version|noticeVersion|configVersion)$/.test(name);
    for (const [path, value] of walk(doc)) {
      if (!isObject(value) || !isObject(value.properties)) continue;
      for (const [name, property] of Object.entries(value.properties)) {
        if (!quantity(name) || !isObject(property)) continue;
        const types = typesOf(property);
        assert.ok(
          types.includes("integer") && !types.includes("number"),
          `${path}.${name}: ${types.join("|")}`,
        );
      }
    }
  });

  test("contract 1.6.0 schemas keep their fields, required-ness and enums", () => {
    for (const [name, shape] of Object.entries(CONTRACT_1_6_SCHEMAS)) {
      const schema = asObject(schemas[name], name);
      const properties = Object.keys(asObject(schema.properties, `${name}.properties`));
      assert.deepEqual(
        asStrings(schema.required ?? [], `${name}.required`).sort(),
        [...shape.required].sort(),
        name,
      );
      for (const field of [...shape.required, ...(shape.optional ?? [])]) {
        assert.ok(properties.includes(field), `${name}.${field} missing`);
      }
      for (const [field, values] of Object.entries(shape.enums ?? {})) {
        const property = asObject(asObject(schema.properties, name)[field], `${name}.${field}`);
        const actual = asStrings(property.enum, `${name}.${field}.enum`);
        assert.deepEqual(
          actual,
          [...values, ...(ENUM_ADDITIONS[`${name}.${field}`] ?? [])],
          `${name}.${field}`,
        );
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Every schema compiles (Ajv, JSON Schema 2020-12), and the patterns mean what they say.
// ---------------------------------------------------------------------------------------------------

type Ajv = import("ajv/dist/2020.js").default;

async function loadAjv(): Promise<Ajv | undefined> {
  let Ajv2020: typeof import("ajv/dist/2020.js").default;
  try {
    // ajv is CommonJS: the ESM default import is module.exports, whose `default` is the class.
    Ajv2020 = (await import("ajv/dist/2020.js")).default.default;
  } catch {
    return undefined;
  }
  try {
    const addFormats = (await import("ajv-formats")).default.default;
    return addFormats(new Ajv2020({ strict: false, allErrors: true })) as Ajv;
  } catch {
    // Without ajv-formats an unknown `format` throws at compile time, so skip format checks instead.
    return new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  }
}

const ajv = await loadAjv();
const DOC_ID = "https://guard.invalid/openapi/v1.json";
if (ajv !== undefined) ajv.addSchema(structuredClone(doc), DOC_ID);

function pointerTo(...parts: string[]): string {
  return `${DOC_ID}#/${parts.map((p) => encodeURIComponent(p.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/")}`;
}

describe("schemas compile with Ajv 2020", { skip: ajv === undefined && "ajv is not installed" }, () => {
  test("every component schema is valid JSON Schema 2020-12 and compiles", () => {
    assert.ok(ajv);
    for (const [name, schema] of Object.entries(schemas)) {
      assert.equal(ajv.validateSchema(asObject(schema, name)), true, `${name}: ${ajv.errorsText()}`);
      assert.doesNotThrow(() => ajv.compile({ $ref: pointerTo("components", "schemas", name) }), name);
    }
  });

  test("every inline request and response schema compiles", () => {
    assert.ok(ajv);
    for (const op of operations) {
      const base = ["paths", op.path, op.method];
      const body = op.op.requestBody;
      if (isObject(body) && body.$ref === undefined) {
        const ref = pointerTo(...base, "requestBody", "content", "application/json", "schema");
        assert.doesNotThrow(() => ajv.compile({ $ref: ref }), `${op.id} body`);
      }
      for (const [status, response] of Object.entries(responsesOf(op))) {
        if (isObject(response) && response.$ref !== undefined) continue;
        const ref = pointerTo(...base, "responses", status, "content", "application/json", "schema");
        assert.doesNotThrow(() => ajv.compile({ $ref: ref }), `${op.id} ${status}`);
      }
    }
  });

  test("sample instances validate as intended", () => {
    assert.ok(ajv);
    const validator = (name: string) => ajv.compile({ $ref: pointerTo("components", "schemas", name) });
    const cases: ReadonlyArray<readonly [string, unknown, boolean]> = [
      ["Id", "org_9f2c4a7b1d3e", true],
      ["Id", "org_short", false],
      ["Id", "ORG_9f2c4a7b1d3e", false],
      ["Id", "org_9f2c4a7b|d3e", false],
      ["Slug", "acme-health", true],
      ["Slug", "-acme", false],
      ["Purpose", "Marketing", true],
      ["Purpose", "Mark|eting", false],
      ["DataType", "email", true],
      ["DataType", "email,phone", false],
      ["DataTypeList", [], false],
      [
        "RecordConsentRequest",
        { email: "a@example.com", noticeId: "ntc_12345678", purpose: "P", dataTypes: ["email"] },
        true,
      ],
      [
        "RecordConsentRequest",
        { email: "a@example.com", noticeId: "ntc_12345678", purpose: "", dataTypes: ["email"] },
        false,
      ],
      [
        "RecordConsentRequest",
        { email: "a@example.com", noticeId: "ntc_12345678", purpose: "P", dataTypes: [], x: 1 },
        false,
      ],
      [
        "ConsentRecord",
        {
          "@context": "https://guard.invalid/ctx",
          consentId: "cns_12345678",
          purpose: "P",
          dataTypes: ["email"],
          givenAt: 1700000001000,
          withdrawnAt: null,
          status: "active",
        },
        true,
      ],
      ["ApiError", { code: "NOT_FOUND", error: "Not found", requestId: "req-1", extra: true }, true],
      ["ApiError", { error: "no code" }, false],
      ["Error", { error: "legacy" }, true],
      [
        "StaffSession",
        {
          staffId: "stf_12345678",
          organizationId: "org_12345678",
          organizationSlug: "acme",
          email: "dpo@example.com",
          role: "dpo",
          csrfToken: "t",
          expiresAt: 1,
        },
        true,
      ],
      [
        "Notice",
        {
          _id: "ntc_12345678",
          organizationId: "org_12345678",
          version: 1,
          itemized: [{ purpose: "P", personalDataDescription: "email" }],
          content: { en: { title: "T", body: "B" } },
          status: "published",
          publishedAt: null,
        },
        true,
      ],
      [
        "Notice",
        {
          _id: "ntc_12345678",
          organizationId: "org_12345678",
          version: 1.5,
          itemized: [],
          content: { en: { title: "T" } },
          status: "published",
        },
        false,
      ],
    ];
    for (const [name, instance, expected] of cases) {
      const validate = validator(name);
      assert.equal(
        validate(instance),
        expected,
        `${name} ${JSON.stringify(instance)}: ${ajv.errorsText(validate.errors)}`,
      );
    }
  });
});
