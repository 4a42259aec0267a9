// Rules for the schemas themselves: the audit hash's separators cannot get into its inputs, times,
// durations and counts are integers, and every schema compiles with Ajv (JSON Schema 2020-12) and
// accepts and refuses sample instances as intended.
// Run: node --import tsx --test contract/test/openapi-schemas.test.ts
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { asObject, doc, isObject, operations, responsesOf, schemas, typesOf, walk } from "./openapi-tree.js";

describe("OpenAPI schemas", () => {
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
        // Every inline response is JSON except a download's (text/csv): compile whichever it has.
        const content = isObject(response) && isObject(response.content) ? response.content : {};
        for (const mediaType of Object.keys(content)) {
          const ref = pointerTo(...base, "responses", status, "content", mediaType, "schema");
          assert.doesNotThrow(() => ajv.compile({ $ref: ref }), `${op.id} ${status} ${mediaType}`);
        }
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
