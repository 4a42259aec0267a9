// Contract 1.6.0, which existing clients speak, is still there: each of its operations at its
// method and path (plus the 1.7.0 foundation routes the server implements first), and each of its
// component schemas with the same fields, required-ness and enums (enums grow only where listed).
// Run: node --import tsx --test contract/test/compatibility.test.ts
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { asObject, asStrings, doc, jsonSchemaOf, operations, responsesOf, schemas } from "./openapi-tree.js";

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

/**
 * Response bodies contract 1.6.0 wrote inline that now have a component schema of their own. The
 * operation answers with that schema, which keeps 1.6.0's shape; the name must not be one of
 * 1.6.0's own (`ConsentGateDecision` is a decision-log row, not the verify answer).
 */
const CONTRACT_1_6_NAMED_BODIES: Readonly<
  Record<string, { readonly status: string; readonly schema: string; readonly shape: SchemaShape }>
> = {
  verifyConsentGate: {
    status: "200",
    schema: "ConsentGateVerdict",
    shape: {
      required: ["decision", "reason", "consentId"],
      enums: { decision: ["allow", "deny"], reason: ["consent_active", "consent_withdrawn"] },
    },
  },
};

/** Enum values contract 1.7.0 adds on purpose (documented in info.description). */
const ENUM_ADDITIONS: Readonly<Record<string, readonly string[]>> = {
  "Notice.status": ["superseded", "archived"],
};

/**
 * The schema has the shape's fields and exactly its required list; each listed enum holds exactly
 * its values, followed by the ENUM_ADDITIONS for that field.
 */
function assertShape(name: string, shape: SchemaShape): void {
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
    assert.deepEqual(actual, [...values, ...(ENUM_ADDITIONS[`${name}.${field}`] ?? [])], `${name}.${field}`);
  }
}

describe("contract 1.6.0 compatibility", () => {
  test("every contract 1.6.0 and foundation operation is there, at its method and path", () => {
    for (const [method, path, id] of [...CONTRACT_1_6_OPERATIONS, ...FOUNDATION_OPERATIONS]) {
      const op = operations.find((candidate) => candidate.id === id);
      assert.ok(op, `${id} missing`);
      assert.equal(`${op.method} ${op.path}`, `${method} ${path}`, id);
    }
  });

  test("contract 1.6.0 schemas keep their fields, required-ness and enums", () => {
    for (const [name, shape] of Object.entries(CONTRACT_1_6_SCHEMAS)) assertShape(name, shape);
  });

  test("bodies 1.6.0 wrote inline answer with their named schema, in 1.6.0's shape", () => {
    for (const [id, { status, schema, shape }] of Object.entries(CONTRACT_1_6_NAMED_BODIES)) {
      const op = operations.find((candidate) => candidate.id === id);
      assert.ok(op, `${id} missing`);
      const body = asObject(jsonSchemaOf(doc, responsesOf(op)[status], `${id} ${status}`), `${id} body`);
      assert.equal(body.$ref, `#/components/schemas/${schema}`, `${id} ${status}`);
      assert.ok(!(schema in CONTRACT_1_6_SCHEMAS), `${schema} is one of contract 1.6.0's schema names`);
      assertShape(schema, shape);
    }
  });
});
